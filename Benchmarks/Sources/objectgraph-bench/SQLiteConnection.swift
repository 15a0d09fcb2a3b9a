import CSQLiteBench

// A deliberately thin layer over the SQLite C API: opening, exec, prepare and
// errors. Used by the raw SQLite workload and by the harness's own on-disk
// checks. Hot loops call sqlite3_* directly on the prepared statements.
// (This file and the raw workload import CSQLiteBench, never GRDB: GRDB's
// GRDBSQLite module declares the same C symbols, and one file importing both
// would see every sqlite3_* name twice.)

struct SQLiteError: Error, CustomStringConvertible {
    let code: Int32
    let message: String
    var description: String { "SQLite error \(code): \(message)" }
}

final class SQLiteConnection {
    let handle: OpaquePointer

    /// Opens with the same flags GRDB uses by default (read-write, create,
    /// SQLite's default threading mode), so the columns differ only by the code
    /// above SQLite.
    init(path: String, readOnly: Bool = false) throws {
        var db: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw SQLiteError(code: rc, message: "\(message) (\(path))")
        }
        handle = db
    }

    func close() {
        sqlite3_close_v2(handle)
    }

    func error(_ code: Int32) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)))
    }

    /// Runs one or more statements that return nothing we need.
    func execute(_ sql: String) throws {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc) }
    }

    /// Compiles one statement; the caller finalizes it.
    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw error(rc) }
        return statement
    }

    /// Runs a one-row, one-column query; for the harness's checks, not hot loops.
    func scalarInt(_ sql: String, _ text: String? = nil) throws -> Int {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        if let text { bindText(statement, 1, text) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw error(sqlite3_errcode(handle)) }
        return Int(sqlite3_column_int64(statement, 0))
    }

    func scalarText(_ sql: String) throws -> String? {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw error(sqlite3_errcode(handle)) }
        return columnText(statement, 0)
    }
}

// Column and bind helpers, inlined into the hot loops.

/// Reads a TEXT column without the strlen of `String(cString:)`; nil for NULL.
@inline(__always)
func columnText(_ statement: OpaquePointer, _ index: Int32) -> String? {
    guard let bytes = sqlite3_column_text(statement, index) else { return nil }
    let count = Int(sqlite3_column_bytes(statement, index))
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
}

/// Binds a TEXT parameter (or NULL). SQLITE_TRANSIENT: SQLite copies the
/// bytes, because Swift's temporary C string only lives during the call.
@inline(__always)
func bindText(_ statement: OpaquePointer, _ index: Int32, _ text: String?) {
    guard let text else {
        sqlite3_bind_null(statement, index)
        return
    }
    var utf8 = text
    utf8.withUTF8 { buffer in
        // An empty buffer may have no base address, which SQLite would bind
        // as NULL; bind the empty string instead.
        guard let base = buffer.baseAddress else {
            sqlite3_bind_text(statement, index, "", 0, csqlitebench_transient())
            return
        }
        base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
            _ = sqlite3_bind_text(statement, index, $0, Int32(buffer.count), csqlitebench_transient())
        }
    }
}

// The raw engines' helpers: the pragmas every engine uses, transactions, stepping.
extension SQLiteConnection {
    /// WAL with synchronous=NORMAL (what GRDB's pool and ObjectGraph set), foreign keys on
    /// (GRDB's default).
    func applyPragmas() throws {
        for pragma in ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = ON"] {
            try execute(pragma)
        }
    }

    func inTransaction(_ body: () throws -> Void) throws {
        try execute("BEGIN IMMEDIATE")
        do {
            try body()
            try execute("COMMIT")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Steps a statement that returns no row, then resets it for reuse.
    @inline(__always)
    func stepDone(_ statement: OpaquePointer) throws {
        let rc = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard rc == SQLITE_DONE else { throw error(rc) }
    }

    /// Steps a query: true with a row, false when done. The caller resets.
    @inline(__always)
    func stepRow(_ statement: OpaquePointer) throws -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let rc: throw error(rc)
        }
    }

    /// The pks the rest of the benchmark relies on (insertion order in a fresh file).
    @inline(__always)
    func expectLastRowID(_ pk: Int64) throws {
        guard sqlite3_last_insert_rowid(handle) == pk else { throw HarnessError("row \(pk) got another pk") }
    }
}

/// A raw engine's statements, each prepared once when the file opens and reused.
final class RawStatements {
    private var statements: [String: OpaquePointer] = [:]

    init(_ connection: SQLiteConnection, _ sql: [String: String]) throws {
        for (name, text) in sql { statements[name] = try connection.prepare(text) }
    }

    subscript(name: String) -> OpaquePointer {
        guard let statement = statements[name] else { preconditionFailure("no statement \(name)") }
        return statement
    }

    func finalize() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements = [:]
    }
}
