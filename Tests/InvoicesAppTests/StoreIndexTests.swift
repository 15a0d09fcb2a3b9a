import CSQLite
import Foundation
import Testing
@testable import InvoicesApp

/// The indexes the list pages read through (client name; issue date and number, alone or
/// after a status, or a status and a currency) are declared with `@Attribute(.indexed)` and
/// `Invoice.indexes`: not part of the model's hash, created when a store opens. A database
/// written before they were declared opens as it is and gets them, and loses the ones no
/// longer declared.
@Suite struct StoreIndexTests {
    static let issueDate = "_og_index:Invoice(issueDate,identifier)"
    static let statusAndIssueDate = "_og_index:Invoice(status,issueDate,identifier)"
    static let statusCurrencyAndIssueDate = "_og_index:Invoice(status,currency,issueDate,identifier)"
    static let totals = "_og_index:Invoice(status,currency,issueDate,amount,paidAmount)"
    static let declared: Set<String> = ["Client_name_index", issueDate, statusAndIssueDate, statusCurrencyAndIssueDate, totals]
    /// What an earlier model declared instead of the issue-date indexes above.
    static let former = [#"CREATE INDEX "Invoice_issueDate_index" ON "Invoice"("issueDate")"#,
                         #"CREATE INDEX "_og_index:Invoice(status,issueDate)" ON "Invoice"("status", "issueDate")"#]

    /// Runs `sql` on its own connection to the file; returns one column of each row.
    private func query(_ url: URL, _ sql: String, column: Int32 = 0) throws -> [String] {
        var database: OpaquePointer?
        defer { sqlite3_close_v2(database) }
        guard sqlite3_open_v2(url.path, &database, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            throw URLError(.cannotOpenFile)
        }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK else { throw URLError(.cannotParseResponse) }
        defer { sqlite3_finalize(statement) }
        var rows: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append(sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "")
        }
        return rows
    }

    @Test func aDatabaseWrittenBeforeTheIndexesOpensUnchangedAndGetsThem() async throws {
        let url = TestFiles.database()
        do {
            let stack = try InvoicesStack(storeURL: url)
            try await insert(into: stack) { context in
                let client = context.makeClient("Old Co")
                context.makeInvoice("OLD-1", client: client)
            }
        }
        #expect(Set(try query(url, "SELECT name FROM sqlite_master WHERE type = 'index'")).isSuperset(of: Self.declared))
        let hash = try query(url, "SELECT value FROM _og_metadata WHERE key = 'modelHash'")
        // The file as the model before the indexes wrote it: same tables, same hash, no indexes.
        for name in Self.declared { _ = try query(url, "DROP INDEX \"\(name)\"") }
        for sql in Self.former { _ = try query(url, sql) }
        #expect(Set(try query(url, "SELECT name FROM sqlite_master WHERE type = 'index'")).isDisjoint(with: Self.declared))

        let reopened = try InvoicesStack(storeURL: url)
        #expect(try await reopened.invoicePage(InvoiceQuery(status: .draft)).items.map(\.identifier) == ["OLD-1"])
        let indexes = Set(try query(url, "SELECT name FROM sqlite_master WHERE type = 'index'"))
        #expect(indexes.isSuperset(of: Self.declared))
        #expect(!indexes.contains("Invoice_issueDate_index") && !indexes.contains("_og_index:Invoice(status,issueDate)"),
                "the former indexes are dropped: \(indexes.sorted())")
        #expect(try query(url, "SELECT value FROM _og_metadata WHERE key = 'modelHash'") == hash)
    }

    @Test func theDefaultListsReadThroughTheIndexes() async throws {
        let url = TestFiles.database()
        _ = try InvoicesStack(storeURL: url)
        // The statements ObjectGraph runs for the pages of the benchmark (see
        // ManagedObjectContext+ReadModels): the plan names the index, not a table scan.
        let newestFirst = #" ORDER BY t0."issueDate" DESC, t0."identifier" DESC, t0._pk DESC LIMIT 50 OFFSET 1950"#
        let plans = [
            #"SELECT t0._pk FROM "Client" t0 ORDER BY t0."name" ASC, t0._pk LIMIT 50 OFFSET 0"#: "Client_name_index",
            // Counted from an index that starts with the status, whichever SQLite picks.
            #"SELECT COUNT(*) FROM "Invoice" t0 WHERE t0."status" = 'sent'"#: "COVERING INDEX _og_index:Invoice(status,",
            #"SELECT t0._pk, t0."notes" FROM "Invoice" t0"# + newestFirst: Self.issueDate,
            #"SELECT t0._pk, t0."notes" FROM "Invoice" t0 WHERE t0."status" = 'sent'"# + newestFirst: Self.statusAndIssueDate,
            #"SELECT t0._pk, t0."notes" FROM "Invoice" t0 WHERE t0."status" = 'sent' AND t0."currency" = 'EUR'"# + newestFirst:
                Self.statusCurrencyAndIssueDate,
            #"SELECT t0."currency", t0."amount", t0."paidAmount" FROM "Invoice" t0 WHERE t0."status" = 'sent' AND t0."currency" = 'EUR'"#:
                "COVERING INDEX " + Self.totals,
        ]
        for (sql, index) in plans {
            let plan = try query(url, "EXPLAIN QUERY PLAN " + sql, column: 3).joined(separator: "\n")
            #expect(plan.contains(index), "\(sql): \(plan)")
            // The page comes in the index's order: nothing sorted, not even invoices of one
            // issue date by number, so a deep page skips its rows inside the index.
            #expect(!plan.contains("TEMP B-TREE"), "\(sql): \(plan)")
        }
    }

    @Test func aDatabaseWrittenBeforeTheSubstringIndexesGetsThemAndItsSearchesReadThem() async throws {
        let url = TestFiles.database()
        do {
            let stack = try InvoicesStack(storeURL: url)
            try await insert(into: stack) { context in
                let client = context.makeClient("Initech Systems", email: "billing@initech.example", number: "C-7781")
                context.makeInvoice("INI-2024-01", client: client, notes: "Quarterly TPS audit")
                context.makeInvoice("OTHER-1", client: context.makeClient("Umbrella"))
            }
        }
        // The file as the model before `.indexedForSubstringSearch` wrote it: same tables and
        // hash, no trigram tables and no triggers filling them.
        let hash = try query(url, "SELECT value FROM _og_metadata WHERE key = 'modelHash'")
        for entity in ["Client", "Invoice"] {
            for trigger in ["insert", "update", "delete"] { _ = try query(url, "DROP TRIGGER \"_og_trigram_\(entity)_\(trigger)\"") }
            _ = try query(url, "DROP TABLE \"_og_trigram_\(entity)\"")
        }
        #expect(try query(url, "SELECT name FROM sqlite_master WHERE name LIKE '%trigram%'").isEmpty)

        let reopened = try InvoicesStack(storeURL: url)
        let searches = ["tps AUDIT", "initech", "2024-0", "c-778"]
        var found: [[String]] = []
        for term in searches {
            found.append(try await reopened.invoicePage(InvoiceQuery(search: term)).items.compactMap(\.identifier))
        }
        #expect(found == [["INI-2024-01"], ["INI-2024-01"], ["INI-2024-01"], []])
        let clients = try await reopened.clientPage(ClientQuery(search: "C-778")).items.map(\.name)
        #expect(clients == ["Initech Systems"])
        #expect(try query(url, "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('_og_trigram_Client', '_og_trigram_Invoice') ORDER BY name")
                == ["_og_trigram_Client", "_og_trigram_Invoice"])
        #expect(try query(url, "SELECT value FROM _og_metadata WHERE key = 'modelHash'") == hash)
        // The invoice search's plan reads the index (the statement the page runs, its term bound as NULL)
        let plan = try query(url, #"EXPLAIN QUERY PLAN SELECT COUNT(*) FROM "Invoice" t0 WHERE ((t0._pk IN (SELECT rowid FROM "_og_trigram_Invoice" WHERE "_og_trigram_Invoice" MATCH ?) AND instr(lower(t0."identifier"), lower(?)) > 0))"#, column: 3)
        #expect(plan.joined().contains("_og_trigram_Invoice VIRTUAL TABLE"), "\(plan)")
    }
}
