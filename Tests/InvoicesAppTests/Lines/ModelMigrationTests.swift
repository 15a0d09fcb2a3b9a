import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

/// A file written by version 1 of the dashboard's model (one amount per invoice), opened by
/// the app's stack: migrated on open, each amount one line.
@Suite struct ModelMigrationTests {
    /// (identifier, amount, currency, notes) of the version 1 file.
    private static let invoices: [(String, String, String, String?)] = [
        ("INV-1", "1234.56", "EUR", "Consulting, March\nsecond line"),
        ("INV-2", "1200", "JPY", nil),
        ("INV-3", "12.345", "BHD", "  \n  Audit  "),
        ("INV-4", "0.10", "EUR", ""),
    ]

    /// Writes a version 1 file with a client, the invoices above and a payment of 100 on INV-1.
    private func writeVersion1File() throws -> URL {
        let url = TestFiles.database()
        let coordinator = PersistentStoreCoordinator(model: try InvoicesModelV1.make())
        try coordinator.addPersistentStore(.sqlite(at: url))
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try context.performAndWait {
            let client = InvoicesModelV1.Client(context: context)
            client.name = "Acme"
            for (identifier, amount, currency, notes) in Self.invoices {
                let invoice = InvoicesModelV1.Invoice(context: context)
                invoice.identifier = identifier
                invoice.amount = decimal(amount)
                invoice.currency = currency
                invoice.notes = notes
                invoice.status = .sent
                invoice.client = client
                if identifier == "INV-1" {
                    let payment = InvoicesModelV1.Payment(context: context)
                    payment.amount = 100
                    payment.invoice = invoice
                    invoice.paidAmount = 100
                }
            }
            try context.save()
        }
        return url
    }

    @Test func aVersion1FileOpensWithEachAmountAsOneLine() async throws {
        let url = try writeVersion1File()
        #expect(try PersistentStoreCoordinator.modelVersion(ofStoreAt: url) == 1)
        let stack = try InvoicesStack(storeURL: url)
        guard case .migrated(let report)? = stack.coordinator.migrationOutcome else {
            Issue.record("expected a migration, got \(String(describing: stack.coordinator.migrationOutcome))")
            return
        }
        #expect(report.fromVersion == 1 && report.toVersion == 2)
        let backup = try #require(report.backup)
        #expect(FileManager.default.fileExists(atPath: backup.path))
        #expect(try PersistentStoreCoordinator.modelVersion(ofStoreAt: url) == 2)

        let context = stack.newImportContext(name: "check")
        let found = try await context.perform { () throws -> [String: [String]] in
            var found: [String: [String]] = [:]
            for invoice in try context.fetch(FetchRequest<Invoice>()) {
                let lines = invoice.currentLines
                found[invoice.identifier] = lines.map {
                    "\($0.itemDescription)|\($0.quantity)|\($0.unitPrice)|\($0.taxRate)|\($0.total)"
                } + ["amount \(invoice.amount)", "paid \(invoice.paidAmount)", "\(invoice.status)"]
            }
            return found
        }
        #expect(found == [
            "INV-1": ["Consulting, March|1|1234.56|0|1234.56", "amount 1234.56", "paid 100", "sent"],
            "INV-2": ["Amount invoiced|1|1200|0|1200", "amount 1200", "paid 0", "sent"],
            "INV-3": ["Audit|1|12.345|0|12.345", "amount 12.345", "paid 0", "sent"],
            "INV-4": ["Amount invoiced|1|0.1|0|0.1", "amount 0.1", "paid 0", "sent"],
        ])
    }

    @Test func theMigratedFileOpensAgainWithoutMigrating() async throws {
        let url = try writeVersion1File()
        _ = try InvoicesStack(storeURL: url)
        let again = try InvoicesStack(storeURL: url)
        #expect(again.coordinator.migrationOutcome == nil)
        let count = try await again.main.perform { try again.main.count(for: FetchRequest<LineItem>()) }
        #expect(count == Self.invoices.count)
    }

    @Test func aNewFileIsWrittenAtVersion2() throws {
        let url = TestFiles.database()
        _ = try InvoicesStack(storeURL: url)
        #expect(try PersistentStoreCoordinator.modelVersion(ofStoreAt: url) == InvoicesModel.version)
    }
}
