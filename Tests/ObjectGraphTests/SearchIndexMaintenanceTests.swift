import Foundation
import Testing
@testable import ObjectGraph

/// Every way rows change keeps the full-text index in step: saves, batch requests, delete
/// rules applied in SQL, another coordinator, another process, and a program that knows
/// nothing of ObjectGraph. "In step" is FTS5's own integrity check against the rows. Those
/// that search only run on every store: PostgreSQL's GIN index is kept by the server itself.
@Suite struct SearchIndexMaintenanceTests {
    @Test(arguments: TestStore.all) func savedInsertsUpdatesAndDeletesKeepTheIndexInStep(_ store: TestStore) async throws {
        // Given a store with an invoice
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try location.coordinator(model: Indexed.model)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let ids = try await SearchStack.seed(context, client: "Acme", invoices: [("A-1", "blue widgets"), ("A-2", "red gadgets")])
        #expect(try await SearchStack.identifiers(context, "widgets") == ["A-1"])

        // When one is updated and the other deleted, and an unrelated attribute changes
        try await context.perform {
            let first = try context.existingObject(with: ids[1], as: Indexed.Invoice.self)
            first.notes = "green sprockets"
            first.amount = 12
            context.delete(try context.existingObject(with: ids[2], as: Indexed.Invoice.self))
            try context.save()
        }

        // Then the old words are gone, the new ones found, the deleted row forgotten
        #expect(try await SearchStack.identifiers(context, "widgets").isEmpty)
        #expect(try await SearchStack.identifiers(context, "sprockets") == ["A-1"])
        #expect(try await SearchStack.identifiers(context, "gadgets").isEmpty)
        if let url = location.url {   // FTS5's own check, on the file
            let raw = try RawDatabase(url)
            #expect(try raw.indexedKeys("Invoice", matching: "gadgets").isEmpty)
            #expect(raw.searchIndexIsInStep("Invoice"))
            #expect(raw.searchIndexIsInStep("Client"))
        }
    }

    @Test func writesThatLeaveTheSearchableTextAsItWasWriteNothingToTheIndex() async throws {
        // Given an indexed invoice, and the index's pages as they are
        let url = TestStack.fileURL()
        let coordinator = try SearchStack.coordinator(at: url)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let ids = try await SearchStack.seed(context, client: "Acme", invoices: [("A-1", "notes")])
        let raw = try RawDatabase(url)
        let before = try raw.strings("SELECT group_concat(id || ':' || hex(block)) FROM \"_og_fts_Invoice_data\"")

        // When only its status changes, in a save and in an update that rewrites every
        // column with the values it had
        try await context.perform {
            try context.existingObject(with: ids[1], as: Indexed.Invoice.self).status = .paid
            try context.save()
        }
        try raw.execute("UPDATE \"Invoice\" SET identifier = identifier, notes = notes, status = 'sent'")

        // Then the update trigger did not fire: the index's pages are byte for byte the same
        #expect(try raw.strings("SELECT group_concat(id || ':' || hex(block)) FROM \"_og_fts_Invoice_data\"") == before)
    }

    @Test(arguments: TestStore.all) func batchInsertUpdateAndDeleteKeepTheIndexInStep(_ store: TestStore) async throws {
        // Given a client
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try location.coordinator(model: Indexed.model)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let client = try await SearchStack.seed(context, client: "Acme")[0]

        // When invoices are batch inserted
        let rows = (1...300).map { n in
            var row = PropertyValues<Indexed.Invoice>()
            row.set(\.identifier, to: "B-\(n)")
            row.set(\.notes, to: n.isMultiple(of: 3) ? "fragile parcel" : "ordinary parcel")
            row.set(\.client, to: client)
            return row
        }
        _ = try coordinator.execute(BatchInsertRequest(rows: rows))
        #expect(try await SearchStack.identifiers(context, "fragile").count == 100)

        // And batch updated
        var rewritten = PropertyValues<Indexed.Invoice>()
        rewritten.set(\.notes, to: "express parcel")
        _ = try coordinator.execute(BatchUpdateRequest(predicate: #Predicate { $0.notes == "fragile parcel" }, set: rewritten))
        #expect(try await SearchStack.identifiers(context, "fragile").isEmpty)
        #expect(try await SearchStack.identifiers(context, "express").count == 100)

        // And batch deleted
        _ = try coordinator.execute(BatchDeleteRequest<Indexed.Invoice>(predicate: #Predicate { $0.notes == "ordinary parcel" }))

        // Then the index holds what the rows hold
        #expect(try await SearchStack.identifiers(context, "parcel").count == 100)
        #expect(try await SearchStack.identifiers(context, "ordinary").isEmpty)
        if let url = location.url { #expect(try RawDatabase(url).searchIndexIsInStep("Invoice")) }
    }

    @Test(arguments: TestStore.all) func cascadesAppliedInSQLRemoveTheDestinationsFromTheIndex(_ store: TestStore) async throws {
        // Given two clients with invoices
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try location.coordinator(model: Indexed.model)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let acme = try await SearchStack.seed(context, client: "Acme", invoices: [("A-1", "anvil"), ("A-2", "rocket")])
        try await SearchStack.seed(context, client: "Globex", invoices: [("G-1", "rocket")])

        // When a batch delete removes Acme, cascading to its invoices in SQL
        let result = try coordinator.execute(BatchDeleteRequest<Indexed.Client>(objectIDs: [acme[0]]))
        #expect(result.changes.deleted.count == 3)

        // Then neither Acme nor its invoices are found any more
        #expect(try await SearchStack.identifiers(context, "rocket") == ["G-1"])
        #expect(try await SearchStack.identifiers(context, "anvil").isEmpty)
        let clients = try await context.perform {
            var request = FetchRequest<Indexed.Client>()
            request.searchQuery = SearchQuery("acme")
            let acme = try context.fetch(request).map(\.name)
            request.searchQuery = SearchQuery("globex")
            return (acme, try context.fetch(request).map(\.name))
        }
        #expect(clients.0.isEmpty && clients.1 == ["Globex"])
        if let url = location.url {
            let raw = try RawDatabase(url)
            #expect(try raw.indexedKeys("Client", matching: "acme").isEmpty)
            #expect(raw.searchIndexIsInStep("Invoice") && raw.searchIndexIsInStep("Client"))
        }
    }

    @Test(arguments: TestStore.shared) func anotherCoordinatorsSavesAreFoundAtOnce(_ store: TestStore) async throws {
        // Given two coordinators on one store
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let reader = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator(model: Indexed.model))
        let writer = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator(model: Indexed.model))
        #expect(try await SearchStack.identifiers(reader, "zeppelin").isEmpty)

        // When one saves an invoice
        try await SearchStack.seed(writer, client: "Hindenburg", invoices: [("Z-1", "zeppelin spare parts")])

        // Then the other's next search finds it
        #expect(try await SearchStack.identifiers(reader, "zeppelin") == ["Z-1"])
    }

    @Test func anotherProcessThatKnowsNothingOfTheIndexKeepsItInStep() async throws {
        // Given a file indexed by a model whose client name is searchable
        let url = TestStack.fileURL()
        let coordinator = try SearchStack.coordinator(at: url, model: FixtureShaped.model)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)

        // When another process, whose model declares nothing searchable, saves a client
        let result = try await FixtureProcess.run(["save-client", url.path, "Zebra Crossing Ltd"])
        try #require(result.exitedSuccessfully, "fixture: \(result.stdout) \(result.stderr)")

        // Then this process finds it by its words, and the index is in step
        let names = try await context.perform {
            var request = FetchRequest<FixtureShaped.Client>()
            request.searchQuery = SearchQuery("zebra cross*")
            return try context.fetch(request).map(\.name)
        }
        #expect(names == ["Zebra Crossing Ltd"])
        #expect(try RawDatabase(url).searchIndexIsInStep("Client"))
    }

    @Test func writesOfAProgramThatKnowsNothingOfObjectGraphAreIndexed() async throws {
        // Given an indexed file
        let url = TestStack.fileURL()
        let context = ManagedObjectContext(.privateQueue, coordinator: try SearchStack.coordinator(at: url))
        let ids = try await SearchStack.seed(context, client: "Acme", invoices: [("A-1", "first draft")])

        // When plain SQL (the sqlite3 shell, say) changes, adds and removes rows
        let key = try #require(ids[1].primaryKey)
        let raw = try RawDatabase(url)
        try raw.execute("""
            UPDATE "Invoice" SET notes = 'final version', _version = _version + 1 WHERE _pk = \(key);
            INSERT INTO "Invoice" (_pk, _version, identifier, notes, status, amount, client) VALUES (9000, 1, 'X-9', 'typed by hand', 'draft', 0, \(ids[0].primaryKey ?? 0));
            """)

        // Then searches see it, and the index is in step
        #expect(try await SearchStack.identifiers(context, "final") == ["A-1"])
        #expect(try await SearchStack.identifiers(context, "draft").isEmpty)
        #expect(try await SearchStack.identifiers(context, "hand") == ["X-9"])
        try raw.execute("DELETE FROM \"Invoice\" WHERE _pk = 9000")
        #expect(try await SearchStack.identifiers(context, "hand").isEmpty)
        #expect(raw.searchIndexIsInStep("Invoice"))
    }

    @Test func aSaveThatFailsLeavesTheIndexAsItWas() async throws {
        // Given an indexed invoice, and another coordinator's stale copy of it
        let url = TestStack.fileURL()
        let first = ManagedObjectContext(.privateQueue, coordinator: try SearchStack.coordinator(at: url))
        let ids = try await SearchStack.seed(first, client: "Acme", invoices: [("A-1", "original words")])
        let second = ManagedObjectContext(.privateQueue, coordinator: try SearchStack.coordinator(at: url))
        second.retainsRegisteredObjects = true
        try await second.perform { _ = try second.existingObject(with: ids[1]) }
        try await first.perform {
            try first.existingObject(with: ids[1], as: Indexed.Invoice.self).notes = "first writer"
            try first.save()
        }

        // When the stale copy's save of new words and a new invoice fails on the conflict
        await #expect(throws: SaveError.self) {
            try await second.perform {
                try second.existingObject(with: ids[1], as: Indexed.Invoice.self).notes = "second writer"
                let extra = Indexed.Invoice(context: second)
                extra.identifier = "A-2"
                extra.notes = "never saved"
                extra.client = try second.existingObject(with: ids[0], as: Indexed.Client.self)
                try second.save()
            }
        }

        // Then the index holds nothing of the failed save
        let raw = try RawDatabase(url)
        #expect(try raw.indexedKeys("Invoice", matching: "second OR never").isEmpty)
        #expect(try await SearchStack.identifiers(first, "first writer") == ["A-1"])
        #expect(raw.searchIndexIsInStep("Invoice"))
    }
}
