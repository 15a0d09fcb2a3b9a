import Foundation
import Testing
@testable import ObjectGraph

/// The substring index follows the rows: saves and batch requests keep it in step, and a file
/// written before the declaration gets its index, filled from the rows, when it is opened.
@Suite struct SubstringIndexMaintenanceTests {
    typealias Client = SubstringIndexed.Client
    typealias Invoice = SubstringIndexed.Invoice

    /// What three searches find: clients by name, invoices by identifier, notes or client name.
    static func found(_ context: ManagedObjectContext, _ terms: [String]) async throws -> [[String]] {
        try await context.perform {
            try terms.map { try SubstringSearch.clients(context, $0) + SubstringSearch.invoices(context, $0) }
        }
    }

    /// FTS5's own check that the index holds exactly the tokens of the entity's rows.
    static func expectInStep(_ url: URL?, _ entities: [String] = ["Client", "Invoice"]) throws {
        guard let url else { return }
        let raw = try RawDatabase(url)
        for entity in entities {
            let table = "\"_og_trigram_\(entity)\""
            #expect(throws: Never.self, "\(entity)'s substring index") {
                try raw.execute("INSERT INTO \(table)(\(table), rank) VALUES ('integrity-check', 1)")
            }
        }
    }

    @Test(arguments: TestStore.all)
    func insertsUpdatesAndDeletesKeepTheIndexInStep(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let context = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator(model: SubstringIndexed.model))

        // Inserted: found by each indexed attribute, and the invoice by its client's name
        let (clientID, invoiceID) = try await context.perform {
            let client = Client(context: context)
            client.name = "Northwind Traders"
            let invoice = Invoice(context: context)
            invoice.identifier = "NW-0001"
            invoice.notes = "first delivery"
            invoice.client = client
            try context.save()
            return (client.objectID, invoice.objectID)
        }
        #expect(try await Self.found(context, ["WIND", "deliv", "nw-00"])
                == [["Northwind Traders", "NW-0001"], ["NW-0001"], ["NW-0001"]])

        // Updated: the old text is gone from the index, the new one is there
        try await context.perform {
            try context.existingObject(with: clientID, as: Client.self).name = "Southwind Co"
            let invoice = try context.existingObject(with: invoiceID, as: Invoice.self)
            invoice.notes = "second shipment"
            invoice.identifier = "SW-0002"
            try context.save()
        }
        #expect(try await Self.found(context, ["north", "south", "deliv", "shipment", "nw-00", "sw-00"])
                == [[], ["Southwind Co", "SW-0002"], [], ["SW-0002"], [], ["SW-0002"]])

        // Set to nil, then deleted
        try await context.perform {
            try context.existingObject(with: invoiceID, as: Invoice.self).notes = nil
            try context.save()
        }
        #expect(try await Self.found(context, ["shipment", "sw-00"]) == [[], ["SW-0002"]])
        try await context.perform {
            context.delete(try context.existingObject(with: clientID, as: Client.self))   // cascades to the invoice
            try context.save()
        }
        #expect(try await Self.found(context, ["south", "sw-00"]) == [[], []])
        try Self.expectInStep(location.url)
    }

    /// A store may write a save's new rows many per statement (SQLite: up to 64, the rest one
    /// by one): every row of a large save is indexed, whichever statement wrote it.
    @Test(arguments: TestStore.all)
    func aLargeSaveIndexesEveryRow(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let context = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator(model: SubstringIndexed.model))
        let count = 333
        try await context.perform {
            let client = Client(context: context)
            client.name = "Bulk Buyer"
            for n in 0..<count {
                let invoice = Invoice(context: context)
                invoice.identifier = "BULK-\(1000 + n)"
                invoice.notes = "crate \(n % 2 == 0 ? "even" : "odd") \(n)"
                invoice.client = client
            }
            try context.save()
        }
        let found = try await Self.found(context, ["bulk-", "bulk-1000", "bulk-1332", "crate even", "crate odd"])
        #expect(found[0].count == count, "every invoice by its identifier")
        #expect(found[1] == ["BULK-1000"] && found[2] == ["BULK-1332"], "the first row and the last: \(found[1]) \(found[2])")
        #expect(found[3].count == (count + 1) / 2 && found[4].count == count / 2)
        try Self.expectInStep(location.url)
    }

    @Test(arguments: TestStore.sqlite)
    func batchRequestsKeepTheIndexInStep(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try location.coordinator(model: SubstringIndexed.model)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let client = try await context.perform {
            let client = Client(context: context)
            client.name = "Batch Holdings"
            try context.save()
            return client.objectID
        }

        // A batch insert: found by notes and identifier
        let rows = (1...5).map { n in
            var row = PropertyValues<Invoice>()
            row.set(\.identifier, to: "BATCH-\(n)")
            row.set(\.notes, to: "bulk note \(n)")
            row.set(\.client, to: client)
            return row
        }
        try coordinator.execute(BatchInsertRequest(rows: rows))
        #expect(try await Self.found(context, ["BULK", "batch-3"])
                == [["BATCH-1", "BATCH-2", "BATCH-3", "BATCH-4", "BATCH-5"], ["BATCH-3"]])

        // A batch update of the notes, and a batch delete
        var values = PropertyValues<Invoice>()
        values.set(\.notes, to: "changed text")
        try coordinator.execute(BatchUpdateRequest(predicate: #Predicate<Invoice> { $0.identifier == "BATCH-1" }, set: values))
        try coordinator.execute(BatchDeleteRequest<Invoice>(predicate: #Predicate { $0.identifier == "BATCH-2" }))
        #expect(try await Self.found(context, ["bulk", "changed", "batch-2"])
                == [["BATCH-3", "BATCH-4", "BATCH-5"], ["BATCH-1"], []])

        // A batch delete through a search (the predicate itself reads the index), cascading
        try coordinator.execute(BatchDeleteRequest<Client>(predicate: #Predicate { $0.name.localizedStandardContains("holdings") }))
        #expect(try await Self.found(context, ["batch", "holdings"]) == [[], []])
        try Self.expectInStep(location.url)
    }

    @Test func aFileWrittenBeforeTheDeclarationGetsItsIndexWhenOpened() async throws {
        // Given a file with rows, written by the model without the declaration
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        do {
            let old = ManagedObjectContext(.privateQueue, coordinator: try SearchStack.coordinator(at: url, model: SubstringScanned.model))
            try await old.perform {
                let client = SubstringScanned.Client(context: old)
                client.name = "Globex Corporation"
                for n in 1...3 {
                    let invoice = SubstringScanned.Invoice(context: old)
                    invoice.identifier = "GX-\(n)"
                    invoice.notes = n == 2 ? "Annual MAINTENANCE" : nil
                    invoice.client = client
                }
                try old.save()
            }
        }
        let hash = try RawDatabase(url).strings("SELECT value FROM _og_metadata WHERE key = 'modelHash'")
        #expect(try RawDatabase(url).strings("SELECT name FROM sqlite_master WHERE name LIKE '%trigram%'").isEmpty)

        // When the declaring model opens it
        let coordinator = try SearchStack.coordinator(at: url, model: SubstringIndexed.model)

        // Then the index is built once, from the rows, and searches read it
        #expect(try SearchStack.store(of: coordinator).builtSubstringIndexes == ["Client", "Invoice"])
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        #expect(try await Self.found(context, ["maintenance", "globex", "gx-3"])
                == [["GX-2"], ["Globex Corporation", "GX-1", "GX-2", "GX-3"], ["GX-3"]])
        try Self.expectInStep(url)
        #expect(try RawDatabase(url).strings("SELECT value FROM _og_metadata WHERE key = 'modelHash'") == hash)

        // And opening it again builds nothing; the model without the declaration still opens it
        #expect(try SearchStack.store(of: SearchStack.coordinator(at: url, model: SubstringIndexed.model)).builtSubstringIndexes.isEmpty)
        _ = try SearchStack.coordinator(at: url, model: SubstringScanned.model)
    }

    @Test func onlyStringAttributesCanBeIndexedForSubstringSearch() {
        final class Counted: ManagedObject {
            @Attribute(.indexedForSubstringSearch) var count: Int = 0
        }
        #expect(throws: ModelError.unsupportedDeclaration(
            entity: "Counted",
            reason: "count is .indexedForSubstringSearch but holds int values; substring indexes hold String attributes only")) {
            try ManagedObjectModel(entities: [Counted.self])
        }
    }
}
