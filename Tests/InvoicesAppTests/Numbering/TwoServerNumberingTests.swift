import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

/// Two `invoices serve` processes on one file (or one PostgreSQL database) send drafts at
/// once, through their forms: every send is acknowledged, and the numbers on disk are 1 to N
/// of the year, each once. On both stores a number another server took first (the year's
/// sequence moved under this save, or its new row clashed) takes the same retry path.
@Suite(.serialized) struct TwoServerNumberingTests {
    /// A store holding `count` drafts of 2026 without numbers; their primary keys.
    private static func drafts(_ count: Int, on store: StackStore) async throws -> (StoreLocation, [Int64]) {
        let location = try await store.makeLocation()
        let stack = try await openStack(location)
        let rows = (0..<count).map { "Acme,,\($0 + 1),EUR,draft,2026-03-\(String(format: "%02d", $0 % 28 + 1)),2026-12-31" }
        let report = try await stack.importCSV(Data((["client_name,identifier,amount,currency,status,issue_date,due_date"] + rows)
            .joined(separator: "\n").utf8))
        #expect(report.importedInvoices == count)
        let keys = try await stack.main.perform {
            try stack.main.fetch(FetchRequest<Invoice>()).compactMap(\.objectID.primaryKey)
        }
        return (location, keys.sorted())
    }

    /// Opens the draft's form on `server`, sends it, saves; the save's status.
    private static func send(_ pk: Int64, through server: ServeProcess) async throws -> Int {
        let visitor = server.visitor()
        let (path, form) = try await visitor.openForm("/invoices/\(pk)/edit")
        let csrf = try #require(form.csrf)
        return try await visitor.post(path, [("csrf", csrf), ("status", "sent"), ("action", "save")]).status
    }

    /// `invoices serve` on the store, named `name` on PostgreSQL.
    private static func serve(_ location: StoreLocation, name: String) async throws -> ServeProcess {
        switch location {
        case .postgreSQL(let url): try await ServeProcess(store: url, name: name)
        case .sqlite(let url): try await ServeProcess(database: url)
        case .inMemory: throw ServeProcess.StartFailure(description: "an in-memory store cannot be served to another process")
        }
    }

    @Test(arguments: StackStore.all)
    func draftsSentThroughTwoServersAtOnceAreNumberedOneToNWithoutGaps(_ store: StackStore) async throws {
        let count = 24
        let (location, keys) = try await Self.drafts(count, on: store)
        let first = try await Self.serve(location, name: "s1"), second = try await Self.serve(location, name: "s2")
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, pk) in keys.enumerated() {
                let server = index % 2 == 0 ? first : second
                group.addTask { try await Self.send(pk, through: server) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 303, count: count), "statuses: \(statuses)")

        let check = try await openStack(location).newImportContext(name: "disk check")
        let (numbers, last) = try await check.perform { () throws -> ([String?], [Int]) in
            (try check.fetch(FetchRequest<Invoice>()).map(\.identifier),
             try check.fetch(FetchRequest<InvoiceSequence>()).map(\.lastNumber))
        }
        let expected = (1...count).map { InvoiceNumberFormat.standard.number(year: 2026, sequence: $0) }
        #expect(numbers.compactMap { $0 }.sorted() == expected, "numbers: \(numbers)")
        #expect(last == [count])
        // Each server's pages show the numbers (the other server's too, merged from the file).
        for server in [first, second] {
            let page = try await server.visitor().get("/invoices/\(keys[0])")
            #expect(page.status == 200 && page.text.contains("INV-2026-000"))
        }
        var renumbered = 0
        for server in [first, second] {
            let stopped = await server.stop()
            #expect(stopped.status == 0, "\(stopped.printed)")
            renumbered += stopped.printed.components(separatedBy: "numbers again").count - 1
        }
        print("two-server numbering (\(store.rawValue)): \(count) drafts sent, \(renumbered) saves numbered again after the other server")
    }
}
