import CSQLite
import Foundation
import ObjectGraph
import TestSupport
import Testing
@testable import InvoicesApp

/// CSV files written to hurt: each bad row is skipped with its line, the others imported.
@Suite struct HostileImportTests {
    private let header = "client_name,client_email,client_city,client_country,identifier,amount,currency,status,issue_date,due_date,notes"

    private func csv(_ rows: [String]) -> Data { Data(([header] + rows).joined(separator: "\n").utf8 + [0x0A]) }

    private func identifiers(_ stack: InvoicesStack) async throws -> Set<String> {
        let context = stack.newImportContext()
        return try await context.perform { Set(try context.fetch(FetchRequest<Invoice>()).map(\.displayNumber)) }
    }

    @Test func controlCharactersSkipTheirRowWithItsLine() async throws {
        let stack = try makeStack()
        let report = try await stack.importCSV(csv([
            "Acme,,,,OK-1,10.00,EUR,sent,2025-03-01,2025-03-31,",                                 // line 2
            "Acme,,,,IMP-NUL\u{0}TAIL,10.00,EUR,sent,2025-03-01,2025-03-31,",                     // line 3
            "Evil\u{1B}[2J Corp,,,,OK-2,10.00,EUR,sent,2025-03-01,2025-03-31,",                   // line 4
            "Acme,,,,OK-3,10.00,EUR,sent,2025-03-01,2025-03-31,\"line one\nline\u{0}two\"",       // lines 5-6
            "Acme,,,,OK-4,10.00,EUR,sent,2025-03-01,2025-03-31,\"two\r\nlines\"",                 // lines 7-8
        ]))
        #expect(report.importedInvoices == 2)
        let reasons = Dictionary(uniqueKeysWithValues: report.skipped.map { ($0.line, $0.reasons.joined(separator: " ")) })
        #expect(report.skipped.map(\.line) == [3, 4, 5])
        #expect(reasons[3] == "Identifier must be one line, without control characters (found U+0000).")
        #expect(reasons[4] == "Client: Name must be one line, without control characters (found U+001B).")
        #expect(reasons[5] == "Notes must not contain control characters other than tabs and line breaks (found U+0000).")
        #expect(try await identifiers(stack) == ["OK-1", "OK-4"])
    }
}

/// Reports stay readable whatever the file holds, and say nothing of the database's insides.
@Suite struct ImportReportWordingTests {
    private let header = "client_name,identifier,amount,currency,issue_date"

    private func csv(_ rows: [String], header: String? = nil) -> Data {
        Data(([header ?? self.header] + rows).joined(separator: "\n").utf8 + [0x0A])
    }

    @Test func aHugeCellIsShortenedWithItsLength() async throws {
        // Two megabytes (20 would do the same, only slower in a debug build).
        let stack = try makeStack()
        let huge = String(repeating: "x", count: 2 << 20)
        let report = try await stack.importCSV(csv(["Acme,BIG-1,\(huge),EUR,2025-03-01,", "Acme,OK-1,1.00,EUR,2025-03-01,"],
                                                    header: header + ",\(huge)"))
        #expect(report.importedInvoices == 1)
        let shown = String(repeating: "x", count: 60) + "…"
        #expect(report.skipped.first?.reasons == [
            "Amount \"\(shown)\" (2,097,152 characters) is not a number like 1234.50 (a dot for decimals, no thousands separators).",
        ])
        #expect(report.ignoredColumns == ["\(shown) (2,097,152 characters)"])
        #expect(report.lines.joined(separator: "\n").utf8.count < 1_000)
    }

    @Test func controlCharactersInAnEchoedValueShowAsReplacementCharacters() async throws {
        let stack = try makeStack()
        let report = try await stack.importCSV(csv(["Acme,BAD-1,1\u{1B}[2J,EUR,2025-03-01"]))
        #expect(report.skipped.first?.reasons.first?.hasPrefix("Amount \"1\u{FFFD}[2J\" is not a number") == true)
    }

    @Test func anAmountPastFifteenIntegerDigitsIsRefusedSoTotalsStayExact() async throws {
        let stack = try makeStack()
        let report = try await stack.importCSV(csv(["Acme,BIG-1,1000000000000000,EUR,2025-03-01",
                                                    "Acme,MAX-1,000999999999999999.99,EUR,2025-03-01",
                                                    "Acme,MAX-2,999999999999999.99,EUR,2025-03-01"]))
        #expect(report.importedInvoices == 2)
        #expect(report.skipped.map(\.description) == [
            "Line 2: Amount \"1000000000000000\" is too large: at most 15 digits before the decimal point "
                + "(up to 999,999,999,999,999), so that totals stay exact.",
        ])
        let totals = CurrencyTotals(try await stack.invoiceSummaries(InvoiceQuery(), today: today).map(\.amount))
        #expect(totals["EUR"] == decimal("1999999999999999.98"))
    }

    @Test func aStoreFailureIsReportedInWordsAndLoggedWhole() async throws {
        let url = TestFiles.database()
        let (logger, log) = CapturingLogHandler.logger()
        let stack = try InvoicesStack(storeURL: url, logger: logger)
        // Another program's trigger refuses every new invoice, with SQL in SQLite's error.
        try execute("CREATE TRIGGER refuse BEFORE INSERT ON \"Invoice\" BEGIN SELECT RAISE(ABORT, 'no invoices today'); END;",
                    at: url)
        let error = await #expect(throws: ImportError.self) {
            try await stack.importCSV(csv(["Acme,INV-1,1.00,EUR,2025-03-01"]))
        }
        #expect(error == .store(reason: "the database does not accept one of the values", importedBefore: 0))
        #expect(error?.description == "The database refused the import: the database does not accept one of the values. "
                + "Nothing was imported.")
        #expect(log.all.contains { $0.hasPrefix("error An import stopped") && $0.contains("no invoices today")
                                   && $0.contains("INSERT") })
    }

    /// Runs `sql` on a connection of its own, as another program would.
    private func execute(_ sql: String, at url: URL) throws {
        var database: OpaquePointer?
        defer { sqlite3_close_v2(database) }
        guard sqlite3_open_v2(url.path, &database, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK,
              sqlite3_exec(database, sql, nil, nil, nil) == SQLITE_OK else { throw URLError(.cannotWriteToFile) }
    }
}
