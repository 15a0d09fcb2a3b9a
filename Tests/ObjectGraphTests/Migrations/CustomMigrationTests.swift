import Foundation
import ObjectGraph
import ObjectGraphFixtureModel
import Testing

/// A custom stage turns each invoice's amount into a line item of a new entity, then the
/// amount is removed: run on real files written by version 1 of the invoices fixture.
@Suite struct CustomMigrationTests {
    static let invoices: [InvoiceFiles.Invoice] = [
        .init(number: "INV-1", amount: Decimal(string: "1234.56")!, notes: "first"),
        .init(number: "INV-2", amount: Decimal(string: "0.1")!),
        .init(number: "INV-3", amount: Decimal(string: "99999999999999.99")!),
        .init(number: "INV-4", amount: 0),
    ]

    @Test func eachAmountBecomesOneLineItemWithTheExactDecimal() async throws {
        // Given a file written by version 1
        let url = try await InvoiceFiles.version1(Self.invoices)
        defer { StoreFileState.cleanUp(url) }

        // When version 3 opens it with the plan
        let coordinator = try InvoiceFiles.open(url, with: InvoicesV3.model, plan: try InvoicesMigration.plan())

        // Then every invoice has one line item whose unit price is its old amount, exactly,
        // and its total is that amount
        let migrated = try await InvoiceFiles.version3Invoices(at: coordinator)
        #expect(migrated.count == Self.invoices.count)
        for invoice in Self.invoices {
            let lines = migrated[invoice.number]?.lines
            #expect(lines == [InvoiceFiles.LineItemValues(description: "Invoice total", quantity: 1, unitPrice: invoice.amount)],
                    "\(invoice.number)")
            #expect(migrated[invoice.number]?.total == invoice.amount)
        }
    }

    @Test func inBatchesEveryRowIsMigratedOnce() async throws {
        // Given a version 1 file with 10 invoices
        let invoices = (1...10).map { InvoiceFiles.Invoice(number: "INV-\($0)", amount: Decimal($0) / 4) }
        let url = try await InvoiceFiles.version1(invoices)
        defer { StoreFileState.cleanUp(url) }

        // When version 3 migrates it 3 invoices at a time (the last batch is short)
        let coordinator = try InvoiceFiles.open(url, with: InvoicesV3.model, plan: try InvoicesMigration.plan(batchSize: 3))

        // Then each invoice has exactly its one line
        let migrated = try await InvoiceFiles.version3Invoices(at: coordinator)
        #expect(migrated.count == 10)
        for invoice in invoices {
            #expect(migrated[invoice.number]?.lines.map(\.unitPrice) == [invoice.amount], "\(invoice.number)")
        }
    }

    @Test func theOtherPropertiesSurviveBothStages() async throws {
        // Given a file written by version 1
        let url = try await InvoiceFiles.version1(Self.invoices)
        defer { StoreFileState.cleanUp(url) }

        // When version 3 opens it with the plan
        let coordinator = try InvoiceFiles.open(url, with: InvoicesV3.model, plan: try InvoicesMigration.plan())

        // Then identifiers (renamed from numbers), notes, the client and the new due date's
        // default are there
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let invoices = try await context.perform {
            try context.fetch(FetchRequest<InvoicesV3.Invoice>(sortBy: [SortDescriptor(\.identifier)])).map {
                ($0.identifier, $0.notes, $0.client?.name, $0.client?.email, $0.dueDate, $0.currency)
            }
        }
        #expect(invoices.map(\.0) == ["INV-1", "INV-2", "INV-3", "INV-4"])
        #expect(invoices.first?.1 == "first")
        #expect(invoices.allSatisfy { $0.2 == "Acme" && $0.3 == "billing@acme.test" && $0.5 == "EUR" })
        #expect(invoices.allSatisfy { $0.4 == Date(timeIntervalSince1970: 1_738_368_000) })
    }

    @Test func theFileHasVersion3sTablesAndNothingElse() async throws {
        // Given a file written by version 1, migrated to version 3
        let url = try await InvoiceFiles.version1(Self.invoices)
        defer { StoreFileState.cleanUp(url) }
        _ = try InvoiceFiles.open(url, with: InvoicesV3.model, plan: try InvoicesMigration.plan())

        // Then the invoice table has lost `amount` and `purchaseOrder` and gained `identifier`
        // and `dueDate`; the line items have a table and an order table; no table is left over
        #expect(try SQLiteFile.columns(of: "Invoice", at: url) == [
            "_pk", "_version", "identifier", "currency", "notes", "status", "issueDate", "dueDate", "client",
        ])
        #expect(try SQLiteFile.columns(of: "LineItem", at: url) == [
            "_pk", "_version", "itemDescription", "quantity", "unitPrice", "invoice",
        ])
        #expect(try SQLiteFile.tables(at: url) == [
            "Client", "Invoice", "LineItem", "_og_metadata", "_og_sequence", "_order_Invoice_lineItems",
        ])
        // The indexes are version 3's: the renamed column's uniqueness, the new to-one's look-up
        let indexes = try SQLiteFile.strings(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name", at: url)
        #expect(indexes.contains(#"CREATE UNIQUE INDEX "Invoice_unique_0" ON "Invoice"("identifier")"#))
        #expect(indexes.contains(#"CREATE INDEX "LineItem_invoice" ON "LineItem"("invoice")"#))
        #expect(indexes.contains(#"CREATE INDEX "Invoice_status_index" ON "Invoice"("status")"#))
    }

    @Test func theMigratedFileIsAtTheNewVersionAndOpensWithoutThePlan() async throws {
        // Given a version 1 file migrated to version 3
        let url = try await InvoiceFiles.version1(Self.invoices)
        defer { StoreFileState.cleanUp(url) }
        let first = try InvoiceFiles.open(url, with: InvoicesV3.model, plan: try InvoicesMigration.plan())
        let identifier = first.storeIdentifier
        #expect(try PersistentStoreCoordinator.modelVersion(ofStoreAt: url) == 3)

        // When version 3 opens it again, with no plan
        let again = try InvoiceFiles.open(url, with: InvoicesV3.model)

        // Then it is the same store, at version 3, and nothing migrates
        #expect(again.storeIdentifier == identifier)
        #expect(again.migrationOutcome == nil)
        guard case .migrated(let report)? = first.migrationOutcome else {
            Issue.record("expected a migration, got \(String(describing: first.migrationOutcome))")
            return
        }
        #expect(report.fromVersion == 1)
        #expect(report.toVersion == 3)
        #expect(report.stages == ["1 → 2", "2 → 3 (amount to line items)"])
    }

    @Test func aVersion2FileRunsOnlyTheCustomStage() async throws {
        // Given a version 1 file migrated to version 2 by an app of version 2
        let url = try await InvoiceFiles.version1(Self.invoices)
        defer { StoreFileState.cleanUp(url) }
        let toVersion2 = try MigrationPlan(models: [InvoicesV1.model, InvoicesV2.model], stages: [
            .lightweight(from: 1, to: 2, renaming: [.property(\InvoicesV1.Invoice.number, to: \InvoicesV2.Invoice.identifier)]),
        ])
        _ = try InvoiceFiles.open(url, with: InvoicesV2.model, plan: toVersion2)
        #expect(try PersistentStoreCoordinator.modelVersion(ofStoreAt: url) == 2)

        // When version 3 opens it
        let coordinator = try InvoiceFiles.open(url, with: InvoicesV3.model, plan: try InvoicesMigration.plan())

        // Then only the custom stage ran, and the line items are there
        guard case .migrated(let report)? = coordinator.migrationOutcome else {
            Issue.record("expected a migration, got \(String(describing: coordinator.migrationOutcome))")
            return
        }
        #expect(report.stages == ["2 → 3 (amount to line items)"])
        #expect(try await InvoiceFiles.version3Invoices(at: coordinator)["INV-1"]?.total == Decimal(string: "1234.56"))
    }

    @Test func newObjectsOfTheNewVersionCanBeSavedAfterwards() async throws {
        // Given a version 1 file migrated to version 3
        let url = try await InvoiceFiles.version1(Self.invoices)
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try InvoiceFiles.open(url, with: InvoicesV3.model, plan: try InvoicesMigration.plan())

        // When a second line is added to INV-1 and saved
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let invoice = try #require(try context.fetch(FetchRequest<InvoicesV3.Invoice>(
                predicate: #Predicate { $0.identifier == "INV-1" })).first)
            let line = InvoicesV3.LineItem(context: context)
            line.itemDescription = "Hours"
            line.quantity = Decimal(string: "2.5")!
            line.unitPrice = 80
            line.invoice = invoice
            try context.save()
        }

        // Then, reopened, the invoice has both lines (the migrated one first) and the total adds up
        let reopened = try InvoiceFiles.open(url, with: InvoicesV3.model)
        let invoice = try #require(try await InvoiceFiles.version3Invoices(at: reopened)["INV-1"])
        #expect(invoice.lines.map(\.description) == ["Invoice total", "Hours"])
        #expect(invoice.total == Decimal(string: "1434.56"))
    }
}
