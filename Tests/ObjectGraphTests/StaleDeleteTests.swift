import Foundation
import Testing
@testable import ObjectGraph

/// Optimistic locking of deletes at the store: deleting an object that another coordinator
/// changed since this context read it is a conflict, like updating it would be.
@Suite struct StaleDeleteTests {
    /// A store with "Acme" in it, read by `reader` (on its own coordinator), then renamed by
    /// another coordinator: `reader`'s copy is stale.
    private func staleReader(_ store: TestStore, policy: MergePolicy) async throws
        -> (ManagedObjectContext, ObjectID, StoreLocation) {
        let location = store.makeLocation()
        let reader = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator())
        reader.mergePolicy = policy
        reader.retainsRegisteredObjects = true      // it keeps its copy, as read, between blocks
        let id = try await reader.perform { () -> ObjectID in
            let client = Client(context: reader)
            client.name = "Acme"
            try reader.save()
            return client.objectID
        }
        let other = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator())
        try await other.perform {
            try other.existingObject(with: id, as: Client.self).name = "Acme (renamed elsewhere)"
            try other.save()
        }
        return (reader, id, location)
    }

    private func names(in location: StoreLocation) async throws -> [String] {
        let fresh = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator())
        return try await fresh.perform { try fresh.fetch(FetchRequest<Client>()).map(\.name) }
    }

    @Test(arguments: TestStore.shared) func deletingAnObjectChangedElsewhereIsAConflictThatKeepsTheRow(_ store: TestStore) async throws {
        let (reader, id, location) = try await staleReader(store, policy: .error)
        // when the stale copy is deleted and saved
        let error = await reader.perform { () -> SaveError? in
            do {
                reader.delete(try reader.existingObject(with: id))
                try reader.save()
                return nil
            } catch let error as SaveError { return error } catch { return nil }
        }
        // then the save is refused with a conflict naming the versions
        guard case .mergeConflict(let conflicts)? = error else { Issue.record("expected a conflict, got \(String(describing: error))"); return }
        #expect(conflicts.map(\.objectID) == [id])
        #expect(conflicts.first?.expectedVersion == 1)
        #expect(conflicts.first?.foundVersion == 2)
        #expect(conflicts.first?.deletedElsewhere == false)
        // and the other coordinator's change is still in the file; the delete stays pending
        #expect(try await names(in: location) == ["Acme (renamed elsewhere)"])
        #expect(await reader.perform { reader.deletedObjects.count } == 1)
        // and the coordinator's cache forgot the stale row: its other contexts read the file's
        let sibling = ManagedObjectContext(.privateQueue, coordinator: reader.persistentStoreCoordinator)
        #expect(try await sibling.perform { try sibling.existingObject(with: id, as: Client.self).name }
            == "Acme (renamed elsewhere)")
    }

    /// What the conflict's message says to do: refresh (keeping the pending delete), look at
    /// what the file holds now, and save again.
    @Test(arguments: TestStore.shared) func afterTheConflictARefreshReadsTheFileAndTheDeleteGoesThrough(_ store: TestStore) async throws {
        let (reader, id, location) = try await staleReader(store, policy: .error)
        let refreshedName = try await reader.perform { () -> String in
            let client = try reader.existingObject(with: id, as: Client.self)
            reader.delete(client)
            #expect(throws: SaveError.self) { try reader.save() }
            reader.refresh(client, mergeChanges: true)
            #expect(reader.deletedObjects.count == 1)       // the delete is still pending
            return client.name
        }
        #expect(refreshedName == "Acme (renamed elsewhere)")
        try await reader.perform { try reader.save() }
        #expect(try await names(in: location).isEmpty)
    }

    @Test(arguments: TestStore.shared) func aPolicyOtherThanErrorDeletesTheChangedRow(_ store: TestStore) async throws {
        let (reader, id, location) = try await staleReader(store, policy: .mergeByPropertyObjectTrump)
        try await reader.perform {
            reader.delete(try reader.existingObject(with: id))
            try reader.save()
        }
        #expect(try await names(in: location).isEmpty)
    }
}
