import CSQLite
import Foundation
import Synchronization

/// Notices commits to the database file made by any other connection, in this process or
/// another one (`invoices import`), by asking SQLite's `PRAGMA data_version` on a read-only
/// connection of its own.
///
/// SQLite changes the value a connection reads whenever another connection has committed since
/// that connection last asked; it reads it from the WAL index in shared memory, so asking is a
/// short read transaction without reading the database. Asking costs a few system calls (the
/// WAL-index locks), so ``current`` asks at most once per ``interval`` and otherwise returns the
/// last answer: another process's commit is seen within that interval. Commits of this
/// process's own contexts are told to ``DataGeneration`` directly by their notifications.
///
/// `Sendable`: the connection and its statement are only used while `connection`'s mutex is
/// held (SQLite runs in multi-thread mode here: a connection must not be used by two threads
/// at once); `version` and `checkedAt` are atomics.
final class StoreVersion: Sendable {
    /// How long an answer is reused.
    static let interval: Duration = .milliseconds(2)

    private struct Connection: @unchecked Sendable {
        // @unchecked Sendable: only touched under the enclosing mutex.
        let database: OpaquePointer
        let statement: OpaquePointer
    }

    private let connection: Mutex<Connection?>
    private let version = Atomic<Int64>(0)
    /// Nanoseconds since `origin` of the last question; 0 before the first.
    private let checkedAt = Atomic<Int64>(0)
    private let origin = ContinuousClock.now

    /// Opens a read-only connection to the database at `path`; nil when it cannot (then the
    /// caller must not rely on other processes' commits being noticed).
    init?(path: String) {
        var database: OpaquePointer?
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
              let database else {
            sqlite3_close_v2(database)
            return nil
        }
        // Asked on server threads: never wait long for a lock (a busy answer counts as a change).
        sqlite3_busy_timeout(database, 50)
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, "PRAGMA data_version", -1, &statement, nil) == SQLITE_OK, let statement else {
            sqlite3_close_v2(database)
            return nil
        }
        connection = Mutex(Connection(database: database, statement: statement))
        _ = ask()
    }

    deinit {
        connection.withLock { connection in
            guard let open = connection else { return }
            sqlite3_finalize(open.statement)
            sqlite3_close_v2(open.database)
            connection = nil
        }
    }

    /// A number that differs from earlier answers once another connection has committed (at
    /// most ``interval`` late).
    var current: Int64 {
        let now = Self.nanoseconds(ContinuousClock.now - origin)
        let last = checkedAt.load(ordering: .acquiring)
        if last != 0 && now - last < Self.nanoseconds(Self.interval) {
            return version.load(ordering: .acquiring)
        }
        return ask()
    }

    /// Asks SQLite; on an error (the file busy beyond the timeout, say) counts it as a change,
    /// so a page is read again rather than served from before.
    private func ask() -> Int64 {
        connection.withLock { connection -> Int64 in
            guard let open = connection else { return version.load(ordering: .acquiring) }
            defer { sqlite3_reset(open.statement) }
            let answer: Int64
            if sqlite3_step(open.statement) == SQLITE_ROW {
                // data_version's own numbers are small and only compared with each other: keep
                // them in the upper half, apart from the error answers below.
                answer = sqlite3_column_int64(open.statement, 0) + (1 << 40)
            } else {
                answer = -Int64(Self.nanoseconds(ContinuousClock.now - origin)) - 1
            }
            version.store(answer, ordering: .releasing)
            checkedAt.store(max(1, Self.nanoseconds(ContinuousClock.now - origin)), ordering: .releasing)
            return answer
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
