import Foundation
import Testing
@testable import ObjectGraph

/// The coordinator's store change signal: what an app reads on every request to know whether
/// anyone else committed (the dashboard's kept pages), instead of opening a connection of its
/// own to the file.
@Suite struct StoreChangeSignalTests {
    /// Saves a client through a new root context of `coordinator`.
    private static func saveClient(named name: String, in coordinator: PersistentStoreCoordinator) async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            Client(context: context).name = name
            try context.save()
        }
    }

    @Test func theSignalChangesWhenAnotherCoordinatorCommitsAndOnlyThen() async throws {
        let url = TestStack.fileURL()
        let reader = try TestStack.coordinator(at: url)
        let other = try TestStack.coordinator(at: url)
        let signal = try reader.storeChangeSignal()
        let before = signal.current
        try await Task.sleep(for: .milliseconds(5))   // past the 2 ms an answer is reused
        #expect(signal.current == before)
        try await Self.saveClient(named: "Acme", in: other)
        try await Task.sleep(for: .milliseconds(5))
        let after = signal.current
        #expect(after != before)
        try await Task.sleep(for: .milliseconds(5))
        #expect(signal.current == after)
    }

    @Test func theCoordinatorOffersOneSignalForAllItsReaders() throws {
        let coordinator = try TestStack.coordinator()
        let first = try coordinator.storeChangeSignal() as AnyObject
        let second = try coordinator.storeChangeSignal() as AnyObject
        let same = first === second
        #expect(same)
    }

    @Test func anInMemoryStoreHasASignalThatNeverChanges() async throws {
        let coordinator = try TestStack.inMemoryCoordinator()
        let signal = try coordinator.storeChangeSignal()
        let before = signal.current
        try await Self.saveClient(named: "Acme", in: coordinator)
        #expect(signal.current == before)
    }

    @Test func aCoordinatorWithoutAStoreHasNoSignal() {
        let coordinator = PersistentStoreCoordinator(model: TestStack.model)
        #expect(throws: StoreError.noStore) { try coordinator.storeChangeSignal() }
    }
}
