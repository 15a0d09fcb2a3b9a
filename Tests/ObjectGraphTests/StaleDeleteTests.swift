import Foundation
import Testing
@testable import ObjectGraph

/// Optimistic locking of deletes at the store: deleting an object that another coordinator
/// changed since this context read it is a conflict, like updating it would be.
@Suite struct StaleDeleteTests {
    /// A file with "Acme" in it, read by `reader` (on its own coordinator), then renamed by
    /// another coordinator: `reader`'s copy is stale.
    private func staleReader(policy: MergePolicy) async throws -> (ManagedObjectContext, ObjectID, URL) {
        let url = TestStack.fileURL()
        let reader = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator(at: url))
        reader.mergePolicy = policy
        reader.retainsRegisteredObjects = true      // it keeps its copy, as read, between blocks
        let id = try await reader.perform { () -> ObjectID in
            let client = Client(context: reader)
            client.name = "Acme"
            try reader.save()
            return client.objectID
        }
        let other = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator(at: url))
        try await other.perform {
            try other.existingObject(with: id, as: Client.self).name = "Acme (renamed elsewhere)"
            try other.save()
        }
        return (reader, id, url)
    }

    private func names(in url: URL) async throws -> [String] {
        let fresh = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator(at: url))
        return try await fresh.perform { try fresh.fetch(FetchRequest<Client>()).map(\.name) }
    }

    @Test func deletingAnObjectChangedElsewhereIsAConflictThatKeepsTheRow() async throws {
        let (reader, id, url) = try await staleReader(policy: .error)
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
        #expect(try await names(in: url) == ["Acme (renamed elsewhere)"])
        #expect(await reader.perform { reader.deletedObjects.count } == 1)
        // and the coordinator's cache forgot the stale row: its other contexts read the file's
        let sibling = ManagedObjectContext(.privateQueue, coordinator: reader.persistentStoreCoordinator)
        #expect(try await sibling.perform { try sibling.existingObject(with: id, as: Client.self).name }
            == "Acme (renamed elsewhere)")
    }

    /// What the conflict's message says to do: refresh (keeping the pending delete), look at
    /// what the file holds now, and save again.
    @Test func afterTheConflictARefreshReadsTheFileAndTheDeleteGoesThrough() async throws {
        let (reader, id, url) = try await staleReader(policy: .error)
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
        #expect(try await names(in: url).isEmpty)
    }

    @Test func aPolicyOtherThanErrorDeletesTheChangedRow() async throws {
        let (reader, id, url) = try await staleReader(policy: .mergeByPropertyObjectTrump)
        try await reader.perform {
            reader.delete(try reader.existingObject(with: id))
            try reader.save()
        }
        #expect(try await names(in: url).isEmpty)
    }
}
