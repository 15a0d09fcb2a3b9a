import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

/// A file written by version 1 of the dashboard's model (one amount per invoice), opened by
/// the app's stack: migrated on open, each amount one line.
@Suite struct ModelMigrationTests {
    @Test func aVersion1FileOpensWithEachAmountAsOneLine() async throws {
        let url = try Version1File.write()
        #expect(try PersistentStoreCoordinator.modelVersion(ofStoreAt: url) == 1)
        let stack = try InvoicesStack(storeURL: url)
        guard case .migrated(let report)? = stack.coordinator.migrationOutcome else {
            Issue.record("expected a migration, got \(String(describing: stack.coordinator.migrationOutcome))")
            return
        }
        #expect(report.fromVersion == 1 && report.toVersion == InvoicesModel.version)
        let backup = try #require(report.backup)
        #expect(FileManager.default.fileExists(atPath: backup.path))
        #expect(try PersistentStoreCoordinator.modelVersion(ofStoreAt: url) == InvoicesModel.version)

        let context = stack.newImportContext(name: "check")
        let found = try await context.perform { () throws -> [String: [String]] in
            var found: [String: [String]] = [:]
            for invoice in try context.fetch(FetchRequest<Invoice>()) {
                let lines = invoice.currentLines
                found[invoice.displayNumber] = lines.map {
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
        let url = try Version1File.write()
        _ = try InvoicesStack(storeURL: url)
        let again = try InvoicesStack(storeURL: url)
        #expect(again.coordinator.migrationOutcome == nil)
        let count = try await again.main.perform { try again.main.count(for: FetchRequest<LineItem>()) }
        #expect(count == Version1File.invoices.count)
    }

    @Test func aNewFileIsWrittenAtVersion2() throws {
        let url = TestFiles.database()
        _ = try InvoicesStack(storeURL: url)
        #expect(try PersistentStoreCoordinator.modelVersion(ofStoreAt: url) == InvoicesModel.version)
    }
}
