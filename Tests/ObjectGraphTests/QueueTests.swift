import Foundation
import Synchronization
import Testing
@testable import ObjectGraph

/// The synchronous save never deadlocks between a parent and a child, whatever their queues,
/// and a child's fetch does not hold its parent's queue while the SQL runs.
@Suite struct QueueTests {
    static let combinations: [(ManagedObjectContext.ConcurrencyType, ManagedObjectContext.ConcurrencyType)] = [
        (.privateQueue, .privateQueue), (.privateQueue, .mainQueue),
        (.mainQueue, .privateQueue), (.mainQueue, .mainQueue),
    ]

    private static func label(_ t: ManagedObjectContext.ConcurrencyType) -> String { t == .mainQueue ? "main" : "private" }

    @Test(arguments: 0..<4)
    func aSynchronousChildSaveCompletesForEveryQueueCombination(_ n: Int) async throws {
        let (parentType, childType) = Self.combinations[n]
        let root = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator())
        let parent = ManagedObjectContext(parentType, parent: root)
        let child = ManagedObjectContext(childType, parent: parent)
        let saved = try await withTimeout {
            try await child.perform { () -> Bool in
                Client(context: child).name = "\(Self.label(parentType))/\(Self.label(childType))"
                try child.save()
                return true
            }
        }
        #expect(saved)
        #expect(try await parent.perform { try parent.fetch(FetchRequest<Client>()).count } == 1)
    }

    @Test(arguments: 0..<4)
    func aSaveInsidePerformAndWaitOfTheParentCompletes(_ n: Int) async throws {
        let (parentType, childType) = Self.combinations[n]
        let root = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator())
        let parent = ManagedObjectContext(parentType, parent: root)
        let child = ManagedObjectContext(childType, parent: parent)
        let count = try await withTimeout {
            try await parent.perform { () -> Int in
                // The parent's block waits for the child, whose save needs the parent.
                try child.performAndWait {
                    Client(context: child).name = "nested"
                    try child.save()
                }
                try parent.save()
                return try parent.fetch(FetchRequest<Client>()).count
            }
        }
        #expect(count == 1)
    }

    @Test func aChildFetchDoesNotHoldTheMainQueueWhileItsQueryRuns() async throws {
        let coordinator = try TestStack.coordinator()
        let writer = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await writer.perform {
            for n in 0..<60_000 { Client(context: writer).name = "Client \(n)" }
            try writer.save()
        }
        let main = ManagedObjectContext(.mainQueue, parent: writer)
        let child = main.newChildContext()
        let fetching = Atomic<Bool>(true)
        let mainBlocksDuringFetch = Atomic<Int>(0)
        let fetch = Task {
            try await child.perform { () -> Int in
                defer { fetching.store(false, ordering: .sequentiallyConsistent) }
                return try child.fetch(FetchRequest<Client>(sortBy: [SortDescriptor(\.name)])).count
            }
        }
        while fetching.load(ordering: .sequentiallyConsistent) {
            await main.perform {
                if fetching.load(ordering: .sequentiallyConsistent) { mainBlocksDuringFetch.add(1, ordering: .relaxed) }
            }
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(try await fetch.value == 60_000)
        #expect(mainBlocksDuringFetch.load(ordering: .relaxed) > 0)
    }
}

struct DeadlockTimeout: Error, CustomStringConvertible {
    let seconds: Double
    var description: String { "no answer after \(seconds) s: a deadlock" }
}

/// Fails the test instead of hanging the suite when `body` deadlocks. (A task group would wait
/// for its stuck child; an unstructured task raced against a timer does not.)
///
/// The bound only tells a hang from slowness, so it is long: under TSan the test process's
/// two cooperative threads are held for up to a minute at a time by other tests opening
/// stores, and a 20 s bound fired while the body simply had no thread to run on.
func withTimeout<T: Sendable>(seconds: Double = 240, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let once = Once()
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
        Task { @Sendable in
            let result = await Result(catching: { try await body() })
            if once.claim() { continuation.resume(with: result) }
        }
        Task { @Sendable in
            try? await Task.sleep(for: .seconds(seconds))
            if once.claim() { continuation.resume(throwing: DeadlockTimeout(seconds: seconds)) }
        }
    }
}

final class Once: Sendable {
    private let flag = Atomic<Bool>(false)
    /// True for the first caller only.
    func claim() -> Bool { flag.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged }
}

extension Result where Failure == Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
