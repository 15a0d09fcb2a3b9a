import Foundation
import Testing
@testable import ObjectGraph

/// A save that changes only an object's to-many relationships does not write its row: the
/// row's version is neither checked nor bumped, so adding an invoice to a client never
/// conflicts with an edit of the client made elsewhere, in either order. (Core Data's trap:
/// there it bumps the client's version, and one of the two saves fails.)
@Suite struct ToManyOnlyUpdateTests {
    /// "Acme" saved, and two contexts on the store that have both read it: `adder` (on
    /// `location`'s second coordinator when the store is shared, else beside `editor`).
    private struct TwoReaders {
        let location: StoreLocation
        let editor: ManagedObjectContext
        let adder: ManagedObjectContext
        let clientID: ObjectID
        let tagID: ObjectID
    }

    private func twoReaders(_ store: TestStore, recordsHistory: Bool = false) async throws -> TwoReaders {
        let location = store.makeLocation()
        let first = try location.coordinator(recordsHistory: recordsHistory)
        let second = store.isShared ? try location.coordinator(recordsHistory: recordsHistory) : first
        let editor = ManagedObjectContext(.privateQueue, coordinator: first, name: "editor")
        let adder = ManagedObjectContext(.privateQueue, coordinator: second, name: "adder")
        for context in [editor, adder] { context.retainsRegisteredObjects = true }   // each keeps what it read
        let (clientID, tagID) = try await editor.perform { () -> (ObjectID, ObjectID) in
            let client = Client(context: editor)
            client.name = "Acme"
            let tag = Tag(context: editor)
            tag.label = "key account"
            try editor.save()
            return (client.objectID, tag.objectID)
        }
        for context in [editor, adder] {
            try await context.perform {
                _ = try context.existingObject(with: clientID, as: Client.self).invoices
                _ = try context.existingObject(with: tagID, as: Tag.self).clients
            }
        }
        return TwoReaders(location: location, editor: editor, adder: adder, clientID: clientID, tagID: tagID)
    }

    private func rename(_ readers: TwoReaders, to name: String) async throws {
        try await readers.editor.perform {
            try readers.editor.existingObject(with: readers.clientID, as: Client.self).name = name
            try readers.editor.save()
        }
    }

    private func addInvoice(_ readers: TwoReaders, _ identifier: String) async throws {
        try await readers.adder.perform {
            let invoice = Invoice(context: readers.adder)
            invoice.identifier = identifier
            invoice.client = try readers.adder.existingObject(with: readers.clientID, as: Client.self)
            try readers.adder.save()
        }
    }

    /// The adder links the tag to the client (many-to-many) and saves.
    private func tagTheClient(_ readers: TwoReaders) async throws {
        try await readers.adder.perform {
            let tag = try readers.adder.existingObject(with: readers.tagID, as: Tag.self)
            tag.clients.insert(try readers.adder.existingObject(with: readers.clientID, as: Client.self))
            try readers.adder.save()
        }
    }

    /// The client as a new coordinator reads it from the store: name, invoices, tags, version.
    private func stored(_ readers: TwoReaders) async throws -> (String, Set<String>, Set<String>, Int64) {
        let fresh = ManagedObjectContext(.privateQueue, coordinator: try readers.location.freshReader(of: readers.editor.persistentStoreCoordinator))
        return try await fresh.perform {
            let client = try fresh.existingObject(with: readers.clientID, as: Client.self)
            return (client.name, Set(client.invoices.map(\.identifier)), Set(client.tags.map(\.label)), client.rowVersion)
        }
    }

    @Test(arguments: TestStore.all) func anInvoiceAddedToAClientRenamedMeanwhileIsSaved(_ store: TestStore) async throws {
        let readers = try await twoReaders(store)
        defer { readers.location.cleanUp() }
        try await rename(readers, to: "Acme Corp")
        // when a context that read "Acme" before the rename adds an invoice to it (default policy, .error)
        try await addInvoice(readers, "INV-1")
        // then the save went through, and the store has the rename and the invoice
        let (name, invoices, _, version) = try await stored(readers)
        #expect(name == "Acme Corp")
        #expect(invoices == ["INV-1"])
        #expect(version == 2)           // the rename's: the addition did not write the row
        // and the adding context now holds the store's row, with nothing left to save
        let settled = try await readers.adder.perform {
            let client = try readers.adder.existingObject(with: readers.clientID, as: Client.self)
            return (client.name, client.rowVersion, client.invoices.map(\.identifier), readers.adder.hasChanges)
        }
        #expect(settled.0 == "Acme Corp")
        #expect(settled.1 == 2)
        #expect(settled.2 == ["INV-1"])
        #expect(!settled.3)
    }

    @Test(arguments: TestStore.all) func aRenameOfAClientThatGainedAnInvoiceMeanwhileIsSaved(_ store: TestStore) async throws {
        let readers = try await twoReaders(store)
        defer { readers.location.cleanUp() }
        try await addInvoice(readers, "INV-1")
        // when the editor, which read the client before the invoice was added, renames it
        try await rename(readers, to: "Acme Corp")
        // then that save went through too: the addition had left the row's version alone
        let (name, invoices, _, version) = try await stored(readers)
        #expect(name == "Acme Corp")
        #expect(invoices == ["INV-1"])
        #expect(version == 2)
    }

    @Test(arguments: TestStore.all) func aLinkAddedToAClientRenamedMeanwhileIsSaved(_ store: TestStore) async throws {
        let readers = try await twoReaders(store)
        defer { readers.location.cleanUp() }
        try await rename(readers, to: "Acme Corp")
        // when the other context tags the client it read before the rename (many-to-many)
        try await tagTheClient(readers)
        // then the link is in the store beside the rename
        let (name, _, tags, version) = try await stored(readers)
        #expect(name == "Acme Corp")
        #expect(tags == ["key account"])
        #expect(version == 2)
    }

    @Test(arguments: TestStore.all) func aLinkToAClientDeletedMeanwhileIsStillAConflict(_ store: TestStore) async throws {
        let readers = try await twoReaders(store)
        defer { readers.location.cleanUp() }
        try await readers.editor.perform {
            readers.editor.delete(try readers.editor.existingObject(with: readers.clientID))
            try readers.editor.save()
        }
        // when the other context tags the client it still holds
        let error: SaveError?
        do {
            try await tagTheClient(readers)
            error = nil
        } catch let saveError as SaveError { error = saveError }
        // then the save is refused: the row to link is gone
        guard case .mergeConflict(let conflicts)? = error else {
            Issue.record("expected a conflict, got \(String(describing: error))")
            return
        }
        #expect(conflicts.map(\.objectID) == [readers.clientID])
        #expect(conflicts.first?.deletedElsewhere == true)
    }

    @Test(arguments: TestStore.all) func historyNamesOnlyTheRelationshipTheSaveChanged(_ store: TestStore) async throws {
        let readers = try await twoReaders(store, recordsHistory: true)
        defer { readers.location.cleanUp() }
        let coordinator = readers.adder.persistentStoreCoordinator
        let before = try coordinator.history(after: nil).last?.token
        try await rename(readers, to: "Acme Corp")
        try await addInvoice(readers, "INV-1")
        // then the addition's transaction records the client as updated in `invoices` alone
        let transactions = try coordinator.history(after: before)
        let added = try #require(transactions.last)
        let change = try #require(added.changes.first { $0.objectID == readers.clientID })
        #expect(change.kind == .update)
        #expect(change.updatedProperties == ["invoices"])
    }
}
