import Foundation
import ObjectGraph
import Synchronization
import Testing
@testable import InvoicesApp

/// `invoices import` as a user runs it: a real child process on a temporary database.
@Suite struct ImportCommandTests {
    private let header = "client_name,client_email,identifier,amount,currency,status,issue_date,due_date"

    private func invoices() throws -> URL {
        try #require(ChildProcess.executable("invoices"), "build the invoices executable first (swift build --build-tests)")
    }

    private func write(_ lines: [String], to folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("invoices.csv")
        try ([header] + lines).joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test func importingAFileWithBadRowsImportsTheRestReportsLinesAndExitsWithStatus2() async throws {
        let folder = TestFiles.folder()
        let database = folder.appendingPathComponent("shop.sqlite")
        let file = try write([
            "Acme GmbH,billing@acme.de,INV-1,100.00,EUR,sent,2025-03-01,2025-03-31",
            "Acme GmbH,billing@acme.de,INV-2,2500,JPY,paid,2025-03-02,2025-04-01",
            "Acme GmbH,billing@acme.de,INV-3,25.5,JPY,paid,2025-03-02,2025-04-01",
            "Globex,,INV-4,80.00,USD,draft,2025-03-03,",
        ], to: folder)
        let result = try await ChildProcess.run(try invoices(), ["import", file.path, "--db", database.path, "--quiet"])
        #expect(result.status == 2)
        #expect(result.standardOutput.contains("Imported 3 of 4 invoices; skipped 1 row. Created 2 clients; 0 existing clients matched."))
        #expect(result.standardOutput.contains("Line 4: Amount has more decimal places than JPY allows (0)."))
        #expect(result.standardError.isEmpty)

        let stack = try InvoicesStack(storeURL: database)
        let page = try await stack.invoicePage(InvoiceQuery(sort: .identifier, descending: false), today: today)
        #expect(page.items.map(\.identifier) == ["INV-1", "INV-2", "INV-4"])
    }

    @Test func importingAFileWithOnlyGoodRowsExitsWithStatus0() async throws {
        let folder = TestFiles.folder()
        let database = folder.appendingPathComponent("shop.sqlite")
        let file = try write(["Acme,,A-1,10,EUR,sent,2025-03-01,"], to: folder)
        let result = try await ChildProcess.run(try invoices(), ["import", file.path, "--db", database.path])
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("Imported 1 of 1 invoice."))
        #expect(result.standardError.contains("1/1 rows (100%)"))
    }

    /// The process exits without closing its store: what it saved must be in the database
    /// file itself by then, not only in the WAL it leaves beside it.
    @Test func anImportLeavesItsRowsInTheDatabaseFileItself() async throws {
        let folder = TestFiles.folder()
        let database = folder.appendingPathComponent("shop.sqlite")
        let file = try write(["Acme,,A-1,10,EUR,sent,2025-03-01,", "Acme,,A-2,20,EUR,sent,2025-03-02,"], to: folder)
        let result = try await ChildProcess.run(try invoices(), ["import", file.path, "--db", database.path, "--quiet"])
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty)

        let copy = folder.appendingPathComponent("copy.sqlite")
        try FileManager.default.copyItem(at: database, to: copy)
        let stack = try InvoicesStack(storeURL: copy)
        let page = try await stack.invoicePage(InvoiceQuery(sort: .identifier, descending: false), today: today)
        #expect(page.items.map(\.identifier) == ["A-1", "A-2"])
    }

    @Test func rowsImportedByAnotherProcessShowInAnOpenStacksPages() async throws {
        let folder = TestFiles.folder()
        let database = folder.appendingPathComponent("shop.sqlite")
        let stack = try InvoicesStack(storeURL: database)
        try await insert(into: stack) { c in c.makeClient("Acme", email: "billing@acme.example") }
        #expect(try await stack.invoicePage(InvoiceQuery(), today: today).totalCount == 0)

        let file = try write(["Someone,billing@acme.example,A-1,10,EUR,sent,2025-03-01,"], to: folder)
        let result = try await ChildProcess.run(try invoices(), ["import", file.path, "--db", database.path, "--quiet"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("1 existing client matched"))

        let page = try await stack.invoicePage(InvoiceQuery(), today: today)
        #expect(page.items.map(\.clientName) == ["Acme"])
    }

    /// Someone edits the clients an import attaches invoices to (here another process renames
    /// them, again and again, as the dashboard's forms would): adding an invoice to a client
    /// does not write the client's row, so no batch meets the renames as a conflict. Before,
    /// the import stopped at its first batch that read a client renamed before it saved.
    @Test func anImportGoesOnWhileItsClientsAreRenamedElsewhere() async throws {
        let folder = TestFiles.folder()
        let database = folder.appendingPathComponent("shop.sqlite")
        let stack = try InvoicesStack(storeURL: database)
        try await insert(into: stack) { c in for n in 0..<10 { c.makeClient("Client \(n)", email: "c\(n)@example.com") } }
        let file = try write((0..<3_000).map { "Someone,c\($0 % 10)@example.com,IMP-\($0),10.00,EUR,sent,2025-03-01," },
                             to: folder)
        let finished = ImportFinished()
        let importing = Task {
            defer { finished.flag.withLock { $0 = true } }
            return try await ChildProcess.run(try invoices(), ["import", file.path, "--db", database.path, "--quiet"])
        }
        var names = Dictionary(uniqueKeysWithValues: (0..<10).map { ("c\($0)@example.com", "Client \($0)") })
        var renames = 0
        while !finished.flag.withLock({ $0 }) {
            let email = "c\(renames % 10)@example.com", name = "Client \(renames % 10), renamed \(renames)"
            let editor = stack.newImportContext(name: "editor")
            try await editor.perform {
                let client = try #require(try editor.fetch(FetchRequest<Client>(predicate: #Predicate { $0.email == email })).first)
                client.name = name
                try editor.save()
            }
            names[email] = name
            renames += 1
        }
        let result = try await importing.value
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.contains("Imported 3000 of 3000 invoices"))
        // Each rename began before the import ended (slowly when the machine is busy).
        #expect(renames >= 2, "the renames must overlap the import's batches")
        let reader = try InvoicesStack(storeURL: database)
        #expect(try await reader.invoicePage(InvoiceQuery(), today: today).totalCount == 3_000)
        let stored = try await reader.main.perform {
            Dictionary(uniqueKeysWithValues: try reader.main.fetch(FetchRequest<Client>()).map { ($0.email ?? "", $0.name) })
        }
        #expect(stored == names)
    }

    @Test func aMissingFileFailsWithAMessageAndStatus1() async throws {
        let folder = TestFiles.folder()
        let result = try await ChildProcess.run(try invoices(), ["import", folder.appendingPathComponent("nope.csv").path,
                                                                 "--db", folder.appendingPathComponent("db.sqlite").path])
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("error: Cannot read "))
        #expect(result.standardOutput.isEmpty)
    }

    @Test func aFileWithoutTheRequiredColumnsFailsWithTheExpectedHeader() async throws {
        let folder = TestFiles.folder()
        let file = folder.appendingPathComponent("wrong.csv")
        try "name,price\nAcme,10\n".write(to: file, atomically: true, encoding: .utf8)
        let result = try await ChildProcess.run(try invoices(), ["import", file.path, "--db", folder.appendingPathComponent("db.sqlite").path])
        #expect(result.status == 1)
        #expect(result.standardError.contains("The header lacks the columns client_name (or client_email), amount (or record), currency, issue_date"))
    }

    @Test func aDatabaseThatIsNotSQLiteIsRefusedWithoutCrashing() async throws {
        let folder = TestFiles.folder()
        let notADatabase = folder.appendingPathComponent("notes.txt")
        try String(repeating: "not a database\n", count: 200).write(to: notADatabase, atomically: true, encoding: .utf8)
        let file = try write(["Acme,,A-1,10,EUR,sent,2025-03-01,"], to: folder)
        let result = try await ChildProcess.run(try invoices(), ["import", file.path, "--db", notADatabase.path])
        #expect(result.status == 1)
        #expect(result.standardError.contains("is not an SQLite database"))
    }

    @Test func missingArgumentsAreAUsageError() async throws {
        let result = try await ChildProcess.run(try invoices(), ["import"])
        #expect(result.status == 64)
        #expect(result.standardError.contains("Missing expected argument '<file>'"))
    }

    @Test func helpListsTheCommands() async throws {
        let result = try await ChildProcess.run(try invoices(), ["--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("serve"))
        #expect(result.standardOutput.contains("import"))
    }

    @Test func serveCreatesAndSeedsTheDatabaseThenSaysWhyItCannotListen() async throws {
        let folder = TestFiles.folder()
        let database = folder.appendingPathComponent("serve.sqlite")
        // 203.0.113.1 (TEST-NET-3) is no address of this machine: the server cannot bind.
        let result = try await ChildProcess.run(try invoices(), ["serve", "--db", database.path, "--port", "0",
                                                                 "--host", "203.0.113.1"])
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("Data: 200 clients, 2000 invoices"))
        #expect(result.standardError.contains("cannot be served"))
        let bad = try await ChildProcess.run(try invoices(), ["serve", "--db", database.path, "--persist", "later"])
        #expect(bad.status == 64)
        #expect(bad.standardError.contains("--persist must be immediate or deferred=SECONDS"))
    }
}

/// Set once the import process of a test has ended.
private final class ImportFinished: Sendable {
    let flag = Mutex(false)
}
