import Foundation
import ObjectGraph
import ObjectGraphFixtureModel
import Testing

/// Persistent history after a migration: recorded changes read in the new version's names,
/// changes of removed entities and properties are gone, tokens taken before still work, and
/// the migration itself is one transaction by the author `migration`.
@Suite struct MigrationHistoryTests {
    /// A version 1 catalog with history: the products saved, Hammer renamed, the supplier's
    /// phone changed, a Chisel saved and deleted. Returns the file and the token after it.
    static func catalogWithHistory() async throws -> (URL, PersistentHistoryToken) {
        let url = try await CatalogFiles.version1(recordsHistory: true)
        let coordinator = try InvoiceFiles.open(url, with: CatalogV1.model, recordsHistory: true)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let products = try context.fetch(FetchRequest<CatalogV1.Product>(predicate: #Predicate { $0.title == "Hammer" }))
            products.first?.title = "Claw Hammer"
            try context.fetch(FetchRequest<CatalogV1.Supplier>()).first?.phone = "555 0199"
            let chisel = CatalogV1.Product(context: context)
            chisel.title = "Chisel"
            try context.save()
            context.delete(chisel)
            try context.save()
        }
        let token = try #require(try coordinator.history(after: nil).last?.token)
        return (url, token)
    }

    @Test func recordedChangesReadInTheNewVersionsNames() async throws {
        // Given a version 1 catalog with history, migrated to version 2
        let (url, _) = try await Self.catalogWithHistory()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try CatalogFiles.migrate(url, recordsHistory: true)

        // When its whole history is read
        let changes = try coordinator.history(after: nil).flatMap(\.changes)

        // Then entities and properties carry their new names, removed ones are gone
        let entities = Set(changes.map(\.objectID.entityName))
        #expect(entities == ["Vendor", "Product", "Label"])
        let productUpdates = changes.filter { $0.objectID.entityName == "Product" && $0.kind == .update }
        #expect(productUpdates.contains { $0.updatedProperties == ["name"] })
        #expect(!changes.contains { $0.updatedProperties.contains("title") || $0.updatedProperties.contains("phone") })
        let vendorUpdate = try #require(changes.first { $0.objectID.entityName == "Vendor" && $0.kind == .update })
        #expect(vendorUpdate.updatedProperties.isEmpty)
        let deletion = try #require(changes.first { $0.kind == .delete })
        #expect(deletion.tombstone?.value("name", as: String.self) == "Chisel")
        #expect(deletion.tombstone?.attributeNames == ["name"])
    }

    @Test func aLightweightMigrationIsOneTransactionWithoutChangesAndOldTokensStillWork() async throws {
        // Given a version 1 catalog with history and a token taken before the migration
        let (url, token) = try await Self.catalogWithHistory()
        defer { StoreFileState.cleanUp(url) }

        // When version 2 migrates it, and history after the token is read
        let coordinator = try CatalogFiles.migrate(url, recordsHistory: true)
        let after = try coordinator.history(after: token)

        // Then it is the migration alone: one transaction by "migration", with no changes
        #expect(after.count == 1)
        #expect(after.first?.author == "migration")
        #expect(after.first?.contextName == "migration 1 → 2")
        #expect(after.first?.changes.isEmpty == true)
    }

    @Test func aCustomStagesSavesAreRecordedAsTheMigrationsOneTransaction() async throws {
        // Given a version 1 invoices file with history and 30 invoices
        let invoices = (1...30).map { InvoiceFiles.Invoice(number: "INV-\($0)", amount: Decimal($0)) }
        let url = try await InvoiceFiles.version1(invoices, recordsHistory: true)
        defer { StoreFileState.cleanUp(url) }
        let before = try InvoiceFiles.open(url, with: InvoicesV1.model).history(after: nil).count

        // When version 3 migrates it, 7 invoices at a time (the stage saves 5 times)
        let coordinator = try InvoiceFiles.open(url, with: InvoicesV3.model, plan: try InvoicesMigration.plan(batchSize: 7))
        let history = try coordinator.history(after: nil)

        // Then exactly one transaction was added, by "migration", holding the 30 new line items
        #expect(history.count == before + 1)
        let migration = try #require(history.last)
        #expect(migration.author == "migration")
        let inserted = migration.changes.filter { $0.kind == .insert }.map(\.objectID.entityName)
        #expect(inserted == Array(repeating: "LineItem", count: 30))
    }
}
