import CSQLiteBench
import Foundation

/// SQLite at its best: one read-only connection, the two statements prepared once and reset
/// between runs, columns read with `sqlite3_column_*`.
final class RawTotals {
    private let db: OpaquePointer
    private let all: OpaquePointer
    private let sent: OpaquePointer

    init(path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else {
            throw BenchError("cannot open \(path)")
        }
        self.db = db
        func prepare(_ sql: String) throws -> OpaquePointer {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
                  let statement else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
            return statement
        }
        all = try prepare(#"SELECT currency, SUM(amount) FROM "BenchInvoice" GROUP BY currency"#)
        sent = try prepare(#"SELECT currency, SUM(amount) FROM "BenchInvoice" WHERE status = ? GROUP BY currency"#)
    }

    deinit {
        sqlite3_finalize(all)
        sqlite3_finalize(sent)
        sqlite3_close(db)
    }

    /// Totals per currency of every invoice, or of the sent ones.
    func totals(sentOnly: Bool) throws -> [String: Double] {
        let statement = sentOnly ? sent : all
        sqlite3_reset(statement)
        if sentOnly { sqlite3_bind_text(statement, 1, "sent", 4, nil) }
        var totals: [String: Double] = [:]
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else {
                throw BenchError(String(cString: sqlite3_errmsg(db)))
            }
            totals[String(cString: text)] = sqlite3_column_double(statement, 1)
        }
        return totals
    }
}
