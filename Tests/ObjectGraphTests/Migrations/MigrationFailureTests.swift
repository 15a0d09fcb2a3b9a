import Foundation
import ObjectGraph
import ObjectGraphFixtureModel
import Testing

/// A stage that fails stops the whole plan: the file is byte for byte what it was, the old
/// version still reads it, and the error names the stage and the object.
@Suite struct MigrationFailureTests {
    /// Version 1 allowed negative amounts (credit notes); version 3's unit prices may not be.
    static let withACreditNote: [InvoiceFiles.Invoice] = [
        .init(number: "INV-1", amount: 120),
        .init(number: "CN-1", amount: -50),
        .init(number: "INV-2", amount: 80),
    ]

    /// Read with SQLite directly: a coordinator would keep the file open (and its WAL) for
    /// as long as something holds it.
    static func primaryKey(of number: String, at url: URL) async throws -> Int64 {
        try #require(Int64(try SQLiteFile.strings("SELECT _pk FROM Invoice WHERE number = '\(number)'", at: url).first ?? ""))
    }

    @Test func aFailingStageLeavesTheFileByteIdenticalAndNamesStageAndObject() async throws {
        // Given a version 1 file with a credit note, closed
        let url = try await InvoiceFiles.version1(Self.withACreditNote)
        defer { StoreFileState.cleanUp(url) }
        let creditNote = try await Self.primaryKey(of: "CN-1", at: url)
        let before = try Data(contentsOf: url)

        // When version 3 opens it with the plan
        let error = #expect(throws: MigrationError.self) {
            _ = try InvoiceFiles.open(url, with: InvoicesV3.model, plan: try InvoicesMigration.plan())
        }

        // Then the custom stage failed at the credit note, whose line item's unit price is negative
        guard case .stageFailed(let failure)? = error else {
            Issue.record("expected stageFailed, got \(String(describing: error))")
            return
        }
        #expect(failure.stage == "2 → 3 (amount to line items)")
        #expect(failure.entity == "Invoice")
        #expect(failure.primaryKey == creditNote)
        guard case .invalid(let validation) = failure.reason else {
            Issue.record("expected a validation failure, got \(failure.reason)")
            return
        }
        #expect(validation.objectID.entityName == "LineItem")
        #expect(validation.property == "unitPrice")
        #expect(validation.code == .numberTooSmall)
        #expect(failure.description.contains("Invoice \(creditNote)"))
        #expect(failure.description.contains("left untouched"))

        // And the file is what it was: its bytes, its version, and version 1 reads it
        #expect(try Data(contentsOf: url) == before)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        #expect(try PersistentStoreCoordinator.modelVersion(ofStoreAt: url) == 1)
        let v1 = try InvoiceFiles.open(url, with: InvoicesV1.model)
        let context = ManagedObjectContext(.privateQueue, coordinator: v1)
        let amounts = try await context.perform {
            try context.fetch(FetchRequest<InvoicesV1.Invoice>(sortBy: [SortDescriptor(\.number)])).map { ($0.number, $0.amount) }
        }
        #expect(amounts.map(\.0) == ["CN-1", "INV-1", "INV-2"])
        #expect(amounts.map(\.1) == [-50, 120, 80])
    }

    @Test func aFailingMigrationLeavesAFileAndTheWALAnotherAppLeftByteIdentical() async throws {
        // Given a version 1 file with a credit note whose transactions are still in its WAL
        let url = try await InvoiceFiles.version1WithTransactionsInItsWAL(Self.withACreditNote)
        defer { StoreFileState.cleanUp(url) }
        let before = try StoreFileState(of: url)
        try #require(before.files["-wal"].map { !$0.bytes.isEmpty } == true)

        // When version 3's migration fails
        #expect(throws: MigrationError.self) {
            _ = try InvoiceFiles.open(url, with: InvoicesV3.model, plan: try InvoicesMigration.plan())
        }

        // Then neither the database nor its WAL changed: the failed attempt did not checkpoint
        #expect(try StoreFileState(of: url) == before)
        #expect(try PersistentStoreCoordinator.modelVersion(ofStoreAt: url) == 1)
    }

    struct Refusal: Error, CustomStringConvertible {
        var description: String { "no invoices over 100 yet" }
    }

    @Test func anErrorThrownByTheStageNamesTheRowItWasMigrating() async throws {
        // Given a version 2 file (by a plan of its own) and a custom stage that throws at INV-1
        let url = try await InvoiceFiles.version1(Self.withACreditNote.filter { $0.amount >= 0 })
        defer { StoreFileState.cleanUp(url) }
        let target = try await Self.primaryKey(of: "INV-1", at: url)
        let plan = try MigrationPlan(models: [InvoicesV1.model, InvoicesV2.model, InvoicesV3.model], stages: [
            .lightweight(from: 1, to: 2, renaming: [.property(\InvoicesV1.Invoice.number, to: \InvoicesV2.Invoice.identifier)]),
            .custom(from: 2, to: 3, name: "strict") { migration in
                try migration.forEachRow(of: InvoicesV2.Invoice.self, batchSize: 1) { invoice, _ in
                    if try invoice[\.amount] > 100 { throw Refusal() }
                }
            },
        ])
        let before = try Data(contentsOf: url)

        // When version 3 opens it
        let error = #expect(throws: MigrationError.self) { _ = try InvoiceFiles.open(url, with: InvoicesV3.model, plan: plan) }

        // Then the error names the stage, the invoice and what the stage threw; the file is untouched
        #expect(error == .stageFailed(MigrationFailure(stage: "2 → 3 (strict)", entity: "Invoice", primaryKey: target,
                                                       reason: .stageError("no invoices over 100 yet"))))
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aFailureInTheLastStageUndoesTheEarlierStagesToo() async throws {
        // Given a version 1 file with a credit note
        let url = try await InvoiceFiles.version1(Self.withACreditNote)
        defer { StoreFileState.cleanUp(url) }

        // When version 3's migration fails in its second stage
        #expect(throws: MigrationError.self) {
            _ = try InvoiceFiles.open(url, with: InvoicesV3.model, plan: try InvoicesMigration.plan())
        }

        // Then the first stage's rename is undone as well: version 1 still finds its numbers
        let v1 = try InvoiceFiles.open(url, with: InvoicesV1.model)
        let context = ManagedObjectContext(.privateQueue, coordinator: v1)
        let orders = try await context.perform {
            try context.fetch(FetchRequest<InvoicesV1.Invoice>(predicate: #Predicate { $0.number == "INV-1" })).map(\.purchaseOrder)
        }
        #expect(orders == ["PO-INV-1"])
    }
}
