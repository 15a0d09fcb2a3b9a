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

    /// Runs `read` in `child` while `parent`'s queue is held by a block, and returns whether
    /// the read ended while the block still held the queue (the block lets go when the read
    /// ends, or after 120 s: a read that waits for the parent's queue ends only then), and
    /// what it read. Decided by order, not by time, so a slow machine cannot fail it.
    private func whileParentBusy<R: Sendable>(_ parent: ManagedObjectContext, _ child: ManagedObjectContext,
                                               _ read: @escaping @Sendable () throws -> R) async throws -> (Bool, R) {
        let gate = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let readFirst = Locked(false)
        await withCheckedContinuation { (started: CheckedContinuation<Void, Never>) in
            parent.perform {
                started.resume()
                let ended = gate.wait(timeout: .now() + 120) == .success
                readFirst.withLock { $0 = ended }
                released.signal()
            }
        }
        let result = try await child.perform { try read() }
        gate.signal()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { released.wait(); done.resume() }
        }
        return (readFirst.withLock { $0 }, result)
    }

    @Test func aChildReadsWhileItsCleanParentIsBusy() async throws {
        let (parent, child) = try await stack()
        let (readWhileBusy, names) = try await whileParentBusy(parent, child) {
            (try child.fetch(FetchRequest<Client>()).map(\.name), try child.count(for: FetchRequest<Client>()))
        }
        #expect(names.0 == ["Acme"] && names.1 == 1)
        #expect(readWhileBusy, "the read waited for the busy parent")
    }

    @Test func aChildStillSeesWhatItsParentHoldsUnsaved() async throws {
        let (parent, child) = try await stack()
        await parent.perform { Client(context: parent).name = "Beta" }
        let names = try await child.perform { try child.fetch(FetchRequest<Client>()).map(\.name).sorted() }
        #expect(names == ["Acme", "Beta"])
        // Once saved, the parent holds nothing again and its child reads the store.
        try await parent.perform { try parent.save() }
        let (readWhileBusy, after) = try await whileParentBusy(parent, child) {
            try child.fetch(FetchRequest<Client>()).map(\.name).sorted()
        }
        #expect(after == ["Acme", "Beta"])
        #expect(readWhileBusy)
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
