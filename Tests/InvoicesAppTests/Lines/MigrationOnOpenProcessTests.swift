import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

/// `invoices import` and `invoices serve`, real processes, on a file of version 1: each
/// migrates it when it opens it, after a backup.
@Suite struct MigrationOnOpenProcessTests {
    @Test func invoicesImportMigratesAVersion1FileThenImports() async throws {
        let url = try Version1File.write()
        let csv = url.deletingLastPathComponent().appendingPathComponent("more.csv")
        try "client_name,client_email,identifier,amount,currency,status,issue_date,due_date\nAcme,,INV-NEW,10.50,EUR,draft,2025-03-01,\n"
            .write(to: csv, atomically: true, encoding: .utf8)
        let invoices = try #require(ChildProcess.executable("invoices"), "build the invoices executable first")
        let result = try await ChildProcess.run(invoices, ["import", csv.path, "--db", url.path, "--quiet"])
        #expect(result.status == 0, "\(result.standardOutput) \(result.standardError)")
        #expect(FileManager.default.fileExists(atPath: url.path + ".v1-backup"))
        #expect(try PersistentStoreCoordinator.modelVersion(ofStoreAt: url) == InvoicesModel.version)
        let stack = try InvoicesStack(storeURL: url)
        let totals = try await stack.main.perform { () throws -> [String: Decimal] in
            Dictionary(uniqueKeysWithValues: try stack.main.fetch(FetchRequest<Invoice>()).map {
                ($0.displayNumber, $0.currentLines.reduce(Decimal(0)) { $0 + $1.total })
            })
        }
        #expect(totals == ["INV-1": decimal("1234.56"), "INV-2": 1200, "INV-3": decimal("12.345"), "INV-4": decimal("0.1"),
                           "INV-NEW": decimal("10.50")])
    }

    @Test func invoicesServeMigratesAVersion1FileAndShowsItsLines() async throws {
        let url = try Version1File.write()
        let server = try await ServeProcess(database: url)
        let visitor = server.visitor()
        let list = try jsonDecoder().decode(Page<InvoiceSummary>.self, from: try await visitor.get("/invoices.json?q=INV-1").body)
        let invoice = try #require(list.items.first { $0.identifier == "INV-1" })
        let page = try await visitor.get("/invoices/\(invoice.id)")
        #expect(page.text.contains("Consulting, March"))
        #expect(page.text.contains("1,234.56 EUR"))
        _ = await server.stop()
        #expect(FileManager.default.fileExists(atPath: url.path + ".v1-backup"))
    }
}
