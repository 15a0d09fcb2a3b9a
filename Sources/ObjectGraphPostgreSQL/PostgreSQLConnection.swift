import CLibPQ
import Foundation
import ObjectGraph

/// One libpq connection with its prepared statements.
///
/// Not thread-safe by itself (libpq's connections are not): the store hands each connection
/// to one caller at a time (``PostgreSQLConnectionPool``). Its calls are synchronous, which
/// fits a context's queue.
///
/// A connection the server dropped (a restart, the network) is reset at its next use; while
/// that fails, every call throws ``StoreError/unreachable(location:reason:)``, and nothing
/// of a transaction in flight was committed. Resets are tried with a growing pause between
/// failures (0.05 s to 2 s); calls in a pause fail at once.
final class PostgreSQLConnection {
    private let handle: OpaquePointer
    /// Where the server is, for messages (the URL without a password).
    let location: String
    /// `SET` statements every new or reset session runs first (time zone, date style, schema).
    private let sessionSetup: String
    /// Prepared statements by their SQL (with `$n` parameters).
    private var prepared: [String: String] = [:]
    /// After a failed reconnection, when the next may be tried, and how long the pause after
    /// the next failure is (0.05 s doubling to 2 s): while the server is down, callers get
    /// `unreachable` at once instead of each waiting for a connection attempt.
    private var reconnection: (notBefore: ContinuousClock.Instant, pause: Duration, reason: String)?

    /// Connects and sets the session up.
    /// - Throws: ``StoreError/unreachable(location:reason:)`` when the server cannot be reached.
    init(conninfo: String, location: String, sessionSetup: String) throws {
        guard let connection = PQconnectdb(conninfo) else {
            throw StoreError.unreachable(location: location, reason: "libpq could not allocate a connection")
        }
        handle = connection
        self.location = location
        self.sessionSetup = sessionSetup
        guard PQstatus(connection) == CONNECTION_OK else {
            let reason = Self.message(PQerrorMessage(connection))
            // No PQfinish here: every property is set, so a throwing init runs deinit, which finishes it.
            throw StoreError.unreachable(location: location, reason: reason)
        }
        try execute(sessionSetup)
    }

    deinit { PQfinish(handle) }

    /// The socket of the connection, for waiting on notifications.
    var socket: Int32 { PQsocket(handle) }

    // MARK: Running statements

    /// Runs SQL without parameters (several statements allowed).
    func execute(_ sql: String) throws {
        try ensureConnected()
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql: sql)
    }

    /// Runs a fragment as a prepared statement (prepared once per connection and SQL text).
    /// - Throws: ``StoreError/unsupported(_:)`` for a string holding U+0000, which PostgreSQL's
    ///   text cannot store (libpq would cut it there without a word).
    func query(_ fragment: SQLFragment) throws -> PostgreSQLResult {
        try execute(prepared: fragment.sql, numbering: true, fragment.bindings)
    }

    /// Runs SQL whose parameters are numbered already (`$1`, `$2`, …) as a prepared
    /// statement: for long statements made once (``PostgreSQLMultiRowInsert``), which need
    /// no renumbering per run.
    func query(numbered sql: String, _ bindings: [StoredValue]) throws -> PostgreSQLResult {
        try execute(prepared: sql, numbering: false, bindings)
    }

    /// Runs `sql` as a prepared statement. Statements are found by the text ObjectGraph wrote
    /// (`?` placeholders when `numbering`), so the renumbering runs once per statement and
    /// connection, not per run: it was most of a save's client time.
    private func execute(prepared sql: String, numbering: Bool, _ bindings: [StoredValue]) throws -> PostgreSQLResult {
        for case .string(let text) in bindings where text.utf8.contains(0) {
            throw StoreError.unsupported("PostgreSQL's text cannot hold the character U+0000 (NUL), found in \(text.debugDescription.prefix(60)); remove it, or store the value as Data")
        }
        try ensureConnected()
        let name = try statementName(for: sql, numbering: numbering)
        let parameters = bindings.map(PostgreSQLValue.text)
        let result = Self.withCStrings(parameters) { values in
            PQexecPrepared(handle, name, Int32(values.count), values, nil, nil, 0)
        }
        do {
            try check(result, sql: sql)
        } catch {
            PQclear(result)
            throw error
        }
        return PostgreSQLResult(result)
    }

    /// Runs a fragment that returns no rows; returns how many rows it changed.
    @discardableResult
    func run(_ fragment: SQLFragment) throws -> Int {
        try query(fragment).affectedRows
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        do {
            try execute("BEGIN")
        } catch StoreError.unreachable {
            // A connection the server dropped since its last use (a restart) learns it only
            // now; nothing was sent yet, so it is made again and the transaction begins once more.
            try execute("BEGIN")
        }
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            // The connection may be gone; a reset one holds no transaction anyway.
            if PQstatus(handle) == CONNECTION_OK { _ = PQexec(handle, "ROLLBACK").map { PQclear($0) } }
            throw error
        }
    }

    // MARK: Notifications

    /// Reads what arrived on the socket and returns the notifications received, oldest first.
    /// - Throws: ``StoreError/unreachable(location:reason:)`` when the connection is gone.
    func notifications() throws -> [(channel: String, payload: String)] {
        guard PQconsumeInput(handle) == 1 else {
            throw StoreError.unreachable(location: location, reason: Self.message(PQerrorMessage(handle)))
        }
        var received: [(String, String)] = []
        while let notify = PQnotifies(handle) {
            received.append((String(cString: notify.pointee.relname), String(cString: notify.pointee.extra)))
            PQfreemem(notify)
        }
        return received
    }

    // MARK: Internals

    /// Resets a connection the server dropped, and prepares its session again.
    private func ensureConnected() throws {
        guard PQstatus(handle) != CONNECTION_OK else { return }
        if let reconnection, ContinuousClock.now < reconnection.notBefore {
            throw StoreError.unreachable(location: location, reason: reconnection.reason)
        }
        prepared.removeAll()
        PQreset(handle)
        guard PQstatus(handle) == CONNECTION_OK else {
            let reason = Self.message(PQerrorMessage(handle))
            let pause = min(.seconds(2), (reconnection?.pause ?? .milliseconds(25)) * 2)
            reconnection = (ContinuousClock.now + pause, pause, reason)
            throw StoreError.unreachable(location: location, reason: reason)
        }
        reconnection = nil
        let result = PQexec(handle, sessionSetup)
        defer { PQclear(result) }
        try check(result, sql: sessionSetup)
    }

    private func statementName(for sql: String, numbering: Bool) throws -> String {
        if let name = prepared[sql] { return name }
        let name = "og\(prepared.count)"
        let text = numbering ? PostgreSQLPlaceholders.numbered(sql) : sql
        let result = PQprepare(handle, name, text, 0, nil)
        defer { PQclear(result) }
        try check(result, sql: text)
        prepared[sql] = name
        return name
    }

    /// Throws the error a result reports: a lost connection as `unreachable`, anything else
    /// as `server` with its SQLSTATE.
    private func check(_ result: OpaquePointer?, sql: String) throws {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY { return }
        if PQstatus(handle) != CONNECTION_OK {
            throw StoreError.unreachable(location: location, reason: Self.message(PQerrorMessage(handle)))
        }
        let state = result.flatMap { PQresultErrorField($0, clibpq_diag_sqlstate()) }.map { String(cString: $0) } ?? ""
        let message = result.map { Self.message(PQresultErrorMessage($0)) } ?? Self.message(PQerrorMessage(handle))
        throw StoreError.server(sqlState: state, message: message, sql: sql)
    }

    private static func message(_ text: UnsafePointer<CChar>?) -> String {
        text.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "no message"
    }

    /// Calls `body` with the values as C strings (nil for SQL NULL), freed afterwards.
    private static func withCStrings<R>(_ values: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let copies = values.map { $0.flatMap { strdup($0) } }
        defer { for copy in copies { free(copy) } }
        return body(copies.map { $0.map { UnsafePointer($0) } })
    }
}

/// A query's result in libpq's text format; freed when it goes.
final class PostgreSQLResult {
    private let handle: OpaquePointer?

    init(_ handle: OpaquePointer?) {
        self.handle = handle
    }

    deinit { PQclear(handle) }

    var rowCount: Int { handle.map { Int(PQntuples($0)) } ?? 0 }
    var columnCount: Int { handle.map { Int(PQnfields($0)) } ?? 0 }

    /// How many rows an INSERT, UPDATE or DELETE changed.
    var affectedRows: Int {
        guard let handle, let text = PQcmdTuples(handle) else { return 0 }
        return Int(String(cString: text)) ?? 0
    }

    func isNull(_ row: Int, _ column: Int) -> Bool {
        PQgetisnull(handle, Int32(row), Int32(column)) == 1
    }

    /// The column's text, nil for NULL.
    func text(_ row: Int, _ column: Int) -> String? {
        guard let handle, !isNull(row, column), let value = PQgetvalue(handle, Int32(row), Int32(column)) else { return nil }
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        return value.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    func int(_ row: Int, _ column: Int) -> Int64 {
        text(row, column).flatMap { Int64($0) } ?? 0
    }

    func double(_ row: Int, _ column: Int) -> Double {
        text(row, column).flatMap { Double($0) } ?? 0
    }

    /// The column as the stored value of an attribute type.
    func value(_ row: Int, _ column: Int, as type: AttributeType) -> StoredValue {
        guard let text = text(row, column) else { return .null }
        return PostgreSQLValue.decode(text, as: type)
    }
}

/// `?` placeholders (how ObjectGraph writes SQL) renumbered as PostgreSQL's `$1`, `$2`, … —
/// outside quoted strings and identifiers.
enum PostgreSQLPlaceholders {
    static func numbered(_ sql: String) -> String {
        var out = ""
        out.reserveCapacity(sql.utf8.count + 16)
        var n = 0
        var quote: Character?
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                out.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                out.append(character)
            } else if character == "?" {
                n += 1
                out += "$\(n)"
            } else {
                out.append(character)
            }
        }
        return out
    }
}
