import Foundation
import ObjectGraph
import ObjectGraphFixtureModel
import Testing

/// Two processes that open the same old file at once migrate it once: the first takes the
/// write lock and migrates; the second waits for the lock, reads the version again inside
/// it, and finds the file migrated.
@Suite struct ConcurrentMigrationTests {
    @Test func twoProcessesOpeningAnOldFileAtOnceMigrateItOnce() async throws {
        // Given a version 1 file with 40 invoices (history on), and two processes ready to open it
        let invoices = (1...40).map { InvoiceFiles.Invoice(number: "INV-\($0)", amount: Decimal($0) + Decimal(string: "0.05")!) }
        let url = try await InvoiceFiles.version1(invoices, recordsHistory: true)
        defer { StoreFileState.cleanUp(url) }
        let first = try await RemoteWriterProcess(storeAt: url, command: "migrate-invoices")
        let second = try await RemoteWriterProcess(storeAt: url, command: "migrate-invoices")
        defer { Task { await first.kill(); await second.kill() } }

        // When both open it at the same moment, the migrating one pausing 0.8 s inside its
        // stage (holding the write lock)
        async let a = first.send("go 0.8")
        async let b = second.send("go 0.8")
        let replies = [try await a, try await b]

        // Then one migrated from 1 to 3 and the other found it migrated while it waited; both
        // see one line item per invoice
        let migrated = replies.filter { $0.hasPrefix("migrated 1→3 line-items=40 backup=\(url.path).v1-backup") }
        let waited = replies.filter { $0 == "migrated-elsewhere 1→3 line-items=40" }
        #expect(migrated.count == 1, "\(replies)")
        #expect(waited.count == 1, "\(replies)")

        // And the file holds one migration in its history, and each amount once, as a line
        let coordinator = try InvoiceFiles.open(url, with: InvoicesV3.model)
        let migrations = try coordinator.history(after: nil).filter { $0.author == "migration" }
        #expect(migrations.count == 1)
        #expect(migrations.first?.contextName == "migration 1 → 3")
        let totals = try await InvoiceFiles.version3Invoices(at: coordinator)
        #expect(totals.count == 40)
        #expect(totals.values.allSatisfy { $0.lines.count == 1 })
        #expect(totals["INV-7"]?.total == Decimal(string: "7.05"))
    }
}
