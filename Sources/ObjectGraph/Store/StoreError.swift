import CSQLite
import Foundation

/// Why a store could not be opened, read or written. Each case says what to do.
public enum StoreError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The file exists but is not an SQLite database.
    case notADatabase(path: String)
    /// The file could not be opened or created (missing folder, no permission, read-only).
    case cannotOpen(path: String, reason: String)
    /// Another connection or process held a lock longer than the busy timeout.
    case busy(path: String, timeout: TimeInterval)
    /// The store was written by a model that differs in ways that cannot be migrated in
    /// place; each difference is listed. The file was not changed.
    case incompatibleModel(path: String, differences: [String])
    /// The coordinator already has a store (one store per coordinator).
    case storeAlreadyAdded
    /// No store has been added to the coordinator.
    case noStore
    /// The store description asks for options that do not go together; the message says which.
    case invalidConfiguration(String)
    /// The model declares `.searchable` attributes, and the SQLite library this process
    /// uses was built without FTS5 (`PRAGMA compile_options` lacks `ENABLE_FTS5`). Nothing
    /// was written to the file.
    case fullTextSearchUnavailable(path: String)
    /// SQLite reported an error.
    case sqlite(code: Int32, message: String, sql: String?)
    /// A database server (PostgreSQL) reported an error, with its SQLSTATE code
    /// (``PostgreSQLState`` names the ones ObjectGraph acts on).
    case server(sqlState: String, message: String, sql: String?)
    /// The database server cannot be reached (down, restarting, the network). Nothing of the
    /// transaction under way was written; retry when it is back.
    case unreachable(location: String, reason: String)
    /// The store cannot do this (yet); the message says what.
    case unsupported(String)
    /// The database server kept aborting the transaction because of concurrent ones (a
    /// serialization failure or a deadlock, by SQLSTATE), and the store gave up after
    /// `attempts` tries. Nothing was written; retry in a moment.
    case contention(location: String, sqlState: String, attempts: Int)

    /// SQLite's extended result code of a `.sqlite` error (``SQLiteResultCode`` names the
    /// ones ObjectGraph acts on).
    public var resultCode: Int32? {
        if case .sqlite(let code, _, _) = self { return code }
        return nil
    }

    public var code: Int {
        switch self {
        case .notADatabase: return 259
        case .cannotOpen: return 256
        case .busy: return 134110
        case .incompatibleModel: return 134100
        case .storeAlreadyAdded, .noStore, .invalidConfiguration: return 134020
        case .fullTextSearchUnavailable, .unsupported: return 134080
        case .sqlite(let code, _, _): return Int(code)
        case .server: return 134060
        case .unreachable, .contention: return 134110
        }
    }

    public var description: String {
        switch self {
        case .notADatabase(let path):
            return "\(path) is not an SQLite database. Point the store at another file, or move this one away."
        case .cannotOpen(let path, let reason):
            return "\(path) cannot be opened (\(reason)). Check that the folder exists, and that it and the file are writable by this process."
        case .busy(let path, let timeout):
            return "\(path) stayed locked by another connection or process for more than \(timeout) s. Retry later, or raise the busy timeout."
        case .incompatibleModel(let path, let differences):
            return "\(path) was written by an incompatible model; the file was left untouched. Differences: "
                + differences.joined(separator: "; ")
                + ". Open it with the model that wrote it, or move it away to start a new store: only added entities and optional attributes migrate in place."
        case .storeAlreadyAdded:
            return "This coordinator already has a store; make another coordinator for another store."
        case .noStore:
            return "The coordinator has no store; call addPersistentStore(_:) first."
        case .invalidConfiguration(let message):
            return "The store description is invalid: \(message)"
        case .fullTextSearchUnavailable(let path):
            return "\(path) cannot be opened with this model: it declares .searchable attributes, which need SQLite's full-text search (FTS5), and the SQLite library this process uses was built without it (PRAGMA compile_options lacks ENABLE_FTS5). Use an SQLite built with FTS5 (Debian's libsqlite3 is), or remove .searchable from the model. Nothing was written to the file."
        case .sqlite(let code, let message, let sql):
            return "SQLite error \(code): \(message)" + (sql.map { " in \($0)" } ?? "")
        case .server(let state, let message, let sql):
            return "The database server reported an error (SQLSTATE \(state)): \(message)" + (sql.map { " in \($0)" } ?? "")
        case .unreachable(let location, let reason):
            return "The database server at \(location) cannot be reached (\(reason)); nothing was written. Retry when it is back."
        case .unsupported(let what):
            return "The store cannot do this: \(what)"
        case .contention(let location, let state, let attempts):
            return "The database server at \(location) aborted the transaction \(attempts) times because of concurrent ones (SQLSTATE \(state)); nothing was written. Retry in a moment."
        }
    }
}

/// PostgreSQL's SQLSTATE codes ObjectGraph acts on, by name (never by message text).
public enum PostgreSQLState {
    /// A unique index refused a row (`unique_violation`).
    public static let uniqueViolation = "23505"
    /// A serializable transaction could not be ordered with another (`serialization_failure`).
    public static let serializationFailure = "40001"
    /// Two transactions waited for each other (`deadlock_detected`).
    public static let deadlockDetected = "40P01"
    /// The server is shutting down or starting (`admin_shutdown`, `cannot_connect_now`).
    public static let adminShutdown = "57P01"
    public static let cannotConnectNow = "57P03"
}

/// SQLite result codes ObjectGraph acts on, by name (never by number or message text). The
/// extended codes are built as sqlite3.h builds them, whose macros Swift does not import.
public enum SQLiteResultCode {
    /// A UNIQUE constraint failed (`SQLITE_CONSTRAINT_UNIQUE`).
    public static let constraintUnique: Int32 = SQLITE_CONSTRAINT | (8 << 8)
    /// A PRIMARY KEY constraint failed (`SQLITE_CONSTRAINT_PRIMARYKEY`).
    public static let constraintPrimaryKey: Int32 = SQLITE_CONSTRAINT | (6 << 8)
    /// The disk is full, or a size limit was reached (`SQLITE_FULL`).
    public static let full: Int32 = SQLITE_FULL
    /// An I/O error (`SQLITE_IOERR`, primary code).
    public static let ioError: Int32 = SQLITE_IOERR

    /// The primary code of an extended result code (`SQLITE_IOERR_WRITE` → `SQLITE_IOERR`).
    public static func primary(_ code: Int32) -> Int32 { code & 0xff }
}
