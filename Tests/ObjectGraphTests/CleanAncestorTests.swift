import Foundation
import Testing
@testable import ObjectGraph

/// A child's read asks its ancestors for their unsaved changes on their queues only when they
/// may hold some: a busy parent holding none does not hold up its children's reads.
@Suite struct CleanAncestorTests {
    /// A parent on a store with one client, and its child.
    private func stack() async throws -> (parent: ManagedObjectContext, child: ManagedObjectContext) {
        let coordinator = try TestStore.sqliteFile.coordinator()
        let parent = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await parent.perform {
            Client(context: parent).name = "Acme"
            try parent.save()
        }
        return (parent, ManagedObjectContext(.privateQueue, parent: parent))
    }

    /// Runs `read` in `child` while `parent`'s queue is held by a block, and returns how long
    /// it took and what it read. The block lets go after 10 s at the latest.
    private func whileParentBusy<R: Sendable>(_ parent: ManagedObjectContext, _ child: ManagedObjectContext,
                                               _ read: @escaping @Sendable () throws -> R) async throws -> (Duration, R) {
        let gate = DispatchSemaphore(value: 0)
        await withCheckedContinuation { (started: CheckedContinuation<Void, Never>) in
            parent.perform { started.resume(); _ = gate.wait(timeout: .now() + 10) }
        }
        let start = ContinuousClock.now
        let result = try await child.perform { try read() }
        let elapsed = ContinuousClock.now - start
        gate.signal()
        return (elapsed, result)
    }

    @Test func aChildReadsWhileItsCleanParentIsBusy() async throws {
        let (parent, child) = try await stack()
        let (elapsed, names) = try await whileParentBusy(parent, child) {
            (try child.fetch(FetchRequest<Client>()).map(\.name), try child.count(for: FetchRequest<Client>()))
        }
        #expect(names.0 == ["Acme"] && names.1 == 1)
        #expect(elapsed < .seconds(5), "the read waited \(elapsed) for the busy parent")
    }

    @Test func aChildStillSeesWhatItsParentHoldsUnsaved() async throws {
        let (parent, child) = try await stack()
        await parent.perform { Client(context: parent).name = "Beta" }
        let names = try await child.perform { try child.fetch(FetchRequest<Client>()).map(\.name).sorted() }
        #expect(names == ["Acme", "Beta"])
        // Once saved, the parent holds nothing again and its child reads the store.
        try await parent.perform { try parent.save() }
        let (elapsed, after) = try await whileParentBusy(parent, child) {
            try child.fetch(FetchRequest<Client>()).map(\.name).sorted()
        }
        #expect(after == ["Acme", "Beta"])
        #expect(elapsed < .seconds(5))
    }

    @Test func aGrandchildSeesWhatItsGrandparentHoldsUnsaved() async throws {
        let (parent, child) = try await stack()
        try await parent.perform {
            let acme = try #require(try parent.fetch(FetchRequest<Client>()).first)
            acme.name = "Acme Renamed"
        }
        let grandchild = ManagedObjectContext(.privateQueue, parent: child)
        let names = try await grandchild.perform { try grandchild.fetch(FetchRequest<Client>()).map(\.name) }
        #expect(names == ["Acme Renamed"])
    }
}
