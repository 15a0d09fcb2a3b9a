import CSQLite
import Foundation

/// One SQLite connection with a cache of prepared statements.
///
/// Not thread-safe by itself: the store hands each connection to one caller at a time
/// (see `ConnectionPool`). SQLite is opened with `SQLITE_OPEN_NOMUTEX` for that reason.
final class SQLiteConnection {
    let handle: OpaquePointer
    let path: String
    let busyTimeout: TimeInterval
    private var statements: [String: SQLiteStatement] = [:]
    /// The statement asked for last: a save asks for the same one row after row, and comparing
    /// the SQL (the same string, mostly) costs less than hashing it.
    private var recent: SQLiteStatement?

    init(path: String, readOnly: Bool, create: Bool, busyTimeout: TimeInterval, vfs: String? = nil) throws {
        var db: OpaquePointer?
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        flags |= readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        let rc = sqlite3_open_v2(path, &db, flags, vfs)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw StoreError.cannotOpen(path: path, reason: message)
        }
        // SQLite opens a file it may read but not write read-only, without a word; writes
        // would then fail at the first save. A store that cannot be written is refused now.
        if !readOnly && sqlite3_db_readonly(db, "main") == 1 {
            sqlite3_close_v2(db)
            throw StoreError.cannotOpen(path: path, reason: "the file is read-only for this process")
        }
        self.handle = db
        self.path = path
        self.busyTimeout = busyTimeout
        sqlite3_busy_timeout(db, Int32(min(busyTimeout * 1000, Double(Int32.max))))
        sqlite3_extended_result_codes(db, 1)
    }

    deinit {
        recent = nil
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// A cached prepared statement for `sql`, reset and ready to bind.
    func statement(_ sql: String) throws -> SQLiteStatement {
        if let recent, recent.sql == sql {
            recent.reset()
            return recent
        }
        if let cached = statements[sql] {
            cached.reset()
            recent = cached
            return cached
        }
        let statement = try SQLiteStatement(connection: self, sql: sql)
        statements[sql] = statement
        recent = statement
        return statement
    }

    /// A cached prepared statement for the fragment's SQL, with the fragment's values bound in
    /// order. Reset it when done (`defer { statement.reset() }`), or read it to its end.
    func prepared(_ fragment: SQLFragment) throws -> SQLiteStatement {
        let statement = try statement(fragment.sql)
        statement.bind(fragment.bindings)
        return statement
    }

    /// Runs a fragment that returns no rows (or whose rows are not read).
    func run(_ fragment: SQLFragment) throws {
        let statement = try prepared(fragment)
        defer { statement.reset() }
        try statement.run()
    }

    /// A statement for SQL run once (a migration's), kept out of the cache: it is finalized
    /// when the caller lets go of it.
    func uncachedStatement(_ sql: String) throws -> SQLiteStatement {
        try SQLiteStatement(connection: self, sql: sql)
    }

    /// Runs SQL without results (several statements allowed).
    func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw self.error(rc, message: message, sql: sql)
        }
    }

    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Leaves the WAL as it is when this connection closes (no checkpoint into the
    /// database), for a connection whose work was refused or rolled back: the files stay
    /// byte for byte what they were.
    func keepWALOnClose() {
        _ = csqlite_set_no_checkpoint_on_close(handle, 1)
    }

    func error(_ rc: Int32, message: String? = nil, sql: String? = nil) -> StoreError {
        let primary = rc & 0xff
        if primary == SQLITE_NOTADB { return .notADatabase(path: path) }
        if primary == SQLITE_BUSY || primary == SQLITE_LOCKED {
            return .busy(path: path, timeout: busyTimeout)
        }
        if primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY || primary == SQLITE_PERM {
            return .cannotOpen(path: path, reason: message ?? String(cString: sqlite3_errmsg(handle)))
        }
        return .sqlite(code: rc, message: message ?? String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    /// Set while a migration holds the connection's transaction open: transactions the
    /// migration's contexts start become savepoints inside it, so the whole migration
    /// commits or rolls back as one. Nesting is never implicit: a connection left in a
    /// transaction by accident still fails at the next `BEGIN`.
    var nestsInOpenTransaction = false

    /// Whether the connection's temporary storage is in memory now (see `transaction`).
    private var temporaryStorageInMemory = false

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE` for writes): commits when it returns,
    /// rolls back when it throws.
    ///
    /// - Parameter journalsInMemory: whether the transaction's statement journals (and any
    ///   temporary table or sort) are held in memory rather than in temporary files. A
    ///   statement that may fail halfway inside a transaction (a multi-row insert, an insert
    ///   whose trigger fills a search index) journals the pages it changes so that it can be
    ///   undone alone, and SQLite writes that journal to a file past 64 KiB: a save's
    ///   statements change a bounded number of rows each, so theirs are better in memory (an
    ///   import of 100,000 invoices made 3.4 million of its 4.7 million write calls to such
    ///   files). A batch request's single statement may change every row of a table, and
    ///   holding the originals of all its pages in memory would cost as much memory as the
    ///   table: other transactions keep files.
    func transaction<T>(immediate: Bool = true, journalsInMemory: Bool = false, _ body: () throws -> T) throws -> T {
        if nestsInOpenTransaction { return try savepoint(body) }
        if journalsInMemory != temporaryStorageInMemory {
            // Only between transactions: SQLite refuses the change inside one.
            try execute(journalsInMemory ? "PRAGMA temp_store = MEMORY" : "PRAGMA temp_store = DEFAULT")
            temporaryStorageInMemory = journalsInMemory
        }
        try execute(immediate ? "BEGIN IMMEDIATE" : "BEGIN")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Runs `body` in a savepoint: released when it returns, rolled back when it throws (the
    /// enclosing transaction goes on).
    private func savepoint<T>(_ body: () throws -> T) throws -> T {
        try execute("SAVEPOINT og_nested")
        do {
            let result = try body()
            try execute("RELEASE og_nested")
            return result
        } catch {
            try? execute("ROLLBACK TO og_nested; RELEASE og_nested")
            throw error
        }
    }
}

/// A prepared statement. Bind with `bind(_:at:)`, then `step()`.
///
/// Text is bound and read with its UTF-8 length, never up to a NUL: a string holding U+0000
/// is stored and read back whole. A value SQLite refuses to bind (longer than its size limit)
/// makes the next `step()` throw instead of running with the parameter left NULL.
final class SQLiteStatement {
    let handle: OpaquePointer
    unowned let connection: SQLiteConnection
    let sql: String
    /// The first bind that failed since the last reset, thrown by `step()`.
    private var bindFailure: Int32?

    init(connection: SQLiteConnection, sql: String) throws {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw connection.error(rc, sql: sql) }
        self.handle = statement
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        bindFailure = nil
    }

    func bind(_ values: [StoredValue]) {
        for (i, v) in values.enumerated() { bind(v, at: Int32(i + 1)) }
    }

    func bind(_ value: StoredValue, at index: Int32) {
        let rc: Int32
        switch value {
        case .null, .unloaded, .references: rc = sqlite3_bind_null(handle, index)
        case .bool(let v): rc = sqlite3_bind_int64(handle, index, v ? 1 : 0)
        case .int(let v): rc = sqlite3_bind_int64(handle, index, v)
        case .double(let v): rc = sqlite3_bind_double(handle, index, v)
        case .string(let v): rc = bindText(v, at: index)
        case .date(let v): rc = sqlite3_bind_double(handle, index, v.timeIntervalSince1970)
        case .decimal(let v): rc = bindText(StoredValue.decimalText(v), at: index)
        case .uuid(let v): rc = bindText(v.uuidString, at: index)
        case .data(let v):
            // A nil pointer would bind NULL: empty data is a zero-length blob.
            if v.isEmpty { rc = sqlite3_bind_zeroblob(handle, index, 0); break }
            rc = v.withUnsafeBytes { raw in
                sqlite3_bind_blob64(handle, index, raw.baseAddress, UInt64(raw.count), csqlite_transient())
            }
        case .reference(let id):
            rc = id.primaryKey.map { sqlite3_bind_int64(handle, index, $0) } ?? sqlite3_bind_null(handle, index)
        }
        if rc != SQLITE_OK && bindFailure == nil { bindFailure = rc }
    }

    /// Binds `text` with its UTF-8 byte count: `-1` would make SQLite stop at the first NUL.
    private func bindText(_ text: String, at index: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { bytes in
            // An empty buffer may have no address, which SQLite would bind as NULL.
            guard let base = bytes.baseAddress else {
                return sqlite3_bind_text64(handle, index, "", 0, csqlite_transient(), UInt8(SQLITE_UTF8))
            }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text64(handle, index, $0, UInt64(bytes.count), csqlite_transient(), UInt8(SQLITE_UTF8))
            }
        }
    }

    /// Advances; true while a row is available.
    func step() throws -> Bool {
        if let bindFailure { throw connection.error(bindFailure, sql: sql) }
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw connection.error(rc, sql: sql)
    }

    /// Runs a statement that returns no rows.
    func run() throws {
        while try step() {}
    }

    func int(at column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    var columnCount: Int32 { sqlite3_column_count(handle) }
    func double(at column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func isNull(at column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// The column's text, all of its bytes (a NUL inside is kept); nil for NULL.
    func string(at column: Int32) -> String? {
        // sqlite3_column_bytes after sqlite3_column_text: the count of the text just made.
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Reads a column as the stored value of an attribute type.
    func value(at column: Int32, as type: AttributeType) -> StoredValue {
        let columnType = sqlite3_column_type(handle, column)
        if columnType == SQLITE_NULL { return .null }
        switch type {
        case .string: return string(at: column).map { .string($0) } ?? .null
        case .int, .int64: return .int(sqlite3_column_int64(handle, column))
        case .bool: return .bool(sqlite3_column_int64(handle, column) != 0)
        case .double: return .double(sqlite3_column_double(handle, column))
        case .date: return .date(Date(timeIntervalSince1970: sqlite3_column_double(handle, column)))
        case .decimal:
            if columnType == SQLITE_TEXT, let bytes = sqlite3_column_text(handle, column),
               let d = DecimalText.parse(UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column)))) {
                return .decimal(d)
            }
            if columnType == SQLITE_TEXT, let text = string(at: column), let d = Decimal(string: text) {
                return .decimal(d)
            }
            return .decimal(Decimal(sqlite3_column_double(handle, column)))
        case .uuid: return string(at: column).flatMap(UUID.init(uuidString:)).map { .uuid($0) } ?? .null
        case .data:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let bytes = sqlite3_column_blob(handle, column), count > 0 else { return .data(Data()) }
            return .data(Data(bytes: bytes, count: count))
        }
    }
}
