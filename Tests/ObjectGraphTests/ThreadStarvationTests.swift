import Foundation
import Synchronization
import Testing
@testable import ObjectGraph

/// Hundreds of nested contexts working at once cannot take every thread Dispatch makes: each
/// of their blocks may wait on main's queue, main's blocks may wait on the writer's, and the
/// writer's queued blocks need a thread to run. The coordinator lets only so many nested
/// blocks run at once; the others wait without a thread.
@Suite struct ThreadStarvationTests {
    private static func stack(limit: Int?) throws -> (writer: ManagedObjectContext, main: ManagedObjectContext) {
        let coordinator = PersistentStoreCoordinator(model: TestStack.model, maximumConcurrentNestedBlocks: limit)
        try coordinator.addPersistentStore(.sqlite(at: TestStack.fileURL()))
        let writer = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "writer")
        return (writer, ManagedObjectContext(.mainQueue, parent: writer, name: "main"))
    }

    /// `perform` without waiting (from async code, `perform { }` means the awaited one).
    private static func schedule(on context: ManagedObjectContext, _ block: @escaping @Sendable () -> Void) {
        context.perform(block)
    }

    @Test func fourHundredChildrenOfMainFetchingWhileMainWaitsOnTheWriterAllFinish() async throws {
        let (writer, main) = try Self.stack(limit: nil)      // the process's limit
        try await writer.perform {
            for n in 0..<20 { Client(context: writer).name = "Client \(n)" }
            try writer.save()
        }
        let children = (0..<400).map { main.newChildContext(name: "child \($0)") }
        let finished = try await withTimeout { () -> Int in
            await withTaskGroup(of: Int.self) { group in
                for child in children {
                    // each fetch takes the ancestors' pending changes in a hop onto main's queue
                    group.addTask { await child.perform { (try? child.fetch(FetchRequest<Client>()).count) ?? -1 } }
                }
                // meanwhile main's blocks wait on the writer, whose own blocks queue behind
                group.addTask {
                    for _ in 0..<50 {
                        Self.schedule(on: writer) { _ = writer.hasChanges }
                        await main.perform { _ = try? main.fetch(FetchRequest<Client>()).count }
                    }
                    return 20
                }
                return await group.reduce(0) { $0 + ($1 == 20 ? 1 : 0) }
            }
        }
        #expect(finished == 401)
    }

    /// Places freed at the same moment start their waiters on several threads at once; the
    /// blocks of one context must still reach its queue in the order they were scheduled.
    /// Many rounds, so that two releases racing is likely (TSan's slowness made it show).
    @Test func blocksOfOneNestedContextKeepTheirOrderWhileTheyWaitForAPlace() async throws {
        let (_, main) = try Self.stack(limit: 2)
        for round in 0..<20 {
            let busy = (0..<8).map { main.newChildContext(name: "busy \($0)") }
            let ordered = main.newChildContext(name: "ordered")
            let log = Locked<[Int]>([])
            for context in busy { Self.schedule(on: context) { usleep(1_000) } }      // the places are taken
            for n in 0..<50 {
                Self.schedule(on: ordered) { log.withLock { $0.append(n) } }
                if n % 10 == 0, let other = busy.randomElement() { Self.schedule(on: other) { usleep(200) } }
            }
            await ordered.perform(schedule: .enqueued) {}
            let seen = log.withLock { $0 }
            #expect(seen == Array(0..<50), "round \(round)")
            if seen != Array(0..<50) { break }
        }
    }
}
