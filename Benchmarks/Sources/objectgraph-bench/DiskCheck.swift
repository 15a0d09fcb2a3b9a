import CSQLiteBench
import Foundation

/// Checks a workload's file through a connection of the harness's own, after
/// the writing steps: what a column claims to have saved must be in the file,
/// in the agreed schema and encodings. (The read steps are checked by their
/// digests.)
enum DiskCheck {
    /// After step 1: WAL, every row, the index the relationship needs, the
    /// storage types, and a sample of rows compared value by value.
    static func afterInsert(path: String, dataset: Dataset) throws {
        try withConnection(path) { db in
            try expect(db.scalarText("PRAGMA journal_mode") == "wal", "journal_mode is not WAL")
            try expect(db.scalarInt("SELECT count(*) FROM Client") == dataset.clients.count, "client count")
            try expect(db.scalarInt("SELECT count(*) FROM Invoice") == dataset.invoices.count, "invoice count")
            try expect(db.scalarInt("""
                SELECT count(*) FROM Invoice
                WHERE typeof(amount) <> 'text' OR typeof(issueDate) <> 'real' OR typeof(dueDate) <> 'real'
                """) == 0, "amount must be TEXT, dates REAL")
            try expect(db.scalarInt("""
                SELECT count(*) FROM pragma_index_list('Invoice') AS list
                JOIN pragma_index_info(list.name) AS info
                WHERE info.name = 'client' AND info.seqno = 0
                """) > 0, "no index on Invoice.client")

            let statement = try db.prepare("""
                SELECT identifier, amount, currency, status, issueDate, dueDate, notes, client
                FROM Invoice WHERE rowid = ?  -- rowid: every column names its key differently
                """)
            defer { sqlite3_finalize(statement) }
            let stride = max(1, dataset.invoices.count / 500)
            for invoice in Swift.stride(from: 0, to: dataset.invoices.count, by: stride).map({ dataset.invoices[$0] }) {
                sqlite3_bind_int64(statement, 1, invoice.pk)
                try expect(sqlite3_step(statement) == SQLITE_ROW, "invoice \(invoice.pk) missing")
                let amountText = columnText(statement, 1) ?? ""
                let matches = columnText(statement, 0) == invoice.identifier
                    && Decimal(string: amountText) == invoice.amount
                    && columnText(statement, 2) == invoice.currency.rawValue
                    && columnText(statement, 3) == invoice.status.rawValue
                    && sqlite3_column_double(statement, 4) == invoice.issueDate.timeIntervalSince1970
                    && sqlite3_column_double(statement, 5) == invoice.dueDate.timeIntervalSince1970
                    && columnText(statement, 6) == invoice.notes
                    && sqlite3_column_int64(statement, 7) == invoice.client
                sqlite3_reset(statement)
                try expect(matches, "invoice \(invoice.pk) differs from the generated data (amount \(amountText))")
            }
        }
    }

    /// After each run of step 4: exactly the chosen invoices carry the new notes.
    static func afterSetNotes(path: String, notes: String, count: Int) throws {
        try withConnection(path) { db in
            let found = try db.scalarInt("SELECT count(*) FROM Invoice WHERE notes = ?", notes)
            try expect(found == count, "\(found) invoices have the new notes, expected \(count)")
        }
    }

    private static func withConnection(_ path: String, _ body: (SQLiteConnection) throws -> Void) throws {
        let db = try SQLiteConnection(path: path, readOnly: true)
        defer { db.close() }
        do {
            try body(db)
        } catch {
            throw HarnessError("on-disk check of \(path): \(error)")
        }
    }

    private static func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw HarnessError(message()) }
    }
}
