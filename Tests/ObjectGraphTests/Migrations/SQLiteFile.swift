import CSQLite
import Foundation

/// Reads and writes a store file with SQLite directly, to see (or set up) what ObjectGraph
/// does not show: the tables and columns a migration left, metadata of older files.
enum SQLiteFile {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func execute(_ sql: String, at url: URL) throws {
        try withConnection(url) { db in
            var message: UnsafeMutablePointer<CChar>?
            guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
                defer { sqlite3_free(message) }
                throw Failure(description: message.map { String(cString: $0) } ?? "error in \(sql)")
            }
        }
    }

    /// The first column of every row `sql` returns, as text.
    static func strings(_ sql: String, at url: URL) throws -> [String] {
        try withConnection(url) { db in
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
                throw Failure(description: String(cString: sqlite3_errmsg(db)))
            }
            defer { sqlite3_finalize(statement) }
            var result: [String] = []
            while sqlite3_step(statement) == SQLITE_ROW {
                result.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "NULL")
            }
            return result
        }
    }

    /// The columns of `table`, in order.
    static func columns(of table: String, at url: URL) throws -> [String] {
        try strings("SELECT name FROM pragma_table_info('\(table)')", at: url)
    }

    /// Every table's name, sorted.
    static func tables(at url: URL) throws -> [String] {
        try strings("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", at: url)
    }

    private static func withConnection<T>(_ url: URL, _ body: (OpaquePointer) throws -> T) throws -> T {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else {
            throw Failure(description: "cannot open \(url.path)")
        }
        defer { sqlite3_close(db) }
        return try body(db)
    }
}
