import Foundation
import Synchronization

/// The ``StoreChangeSignal`` of an SQLite file: `PRAGMA data_version` on a read-only
/// connection of its own.
///
/// SQLite changes the value a connection reads whenever another connection has committed
/// since that connection last asked; it reads it from the WAL index in shared memory, so
/// asking is a short read transaction without reading the database. Asking still costs a few
/// system calls (the WAL-index locks), so ``current`` asks at most once per `interval` and
/// otherwise returns the last answer.
///
/// `data_version` moves for every commit, records (``StoreRecords``: sessions, open forms)
/// included. In a file that records history every data write records a transaction, so when
/// `data_version` moves the signal reads history's high-water mark (`sqlite_sequence`, which
/// only grows, purges included) and reports a change only when that moved: a visitor typing
/// into a form on another server drops nobody's kept pages.
///
/// `Sendable`: the connection and the last `data_version` seen are only used while
/// `connection`'s lock is held; `version` and `checkedAt` are atomics.
final class SQLiteDataVersion: StoreChangeSignal {
    private struct Watch {
        let db: SQLiteConnection
        var dataVersion: Int64?
        var answer: Int64 = 0
    }
    private let connection: Locked<Watch>
    private let gatedByHistory: Bool
    private let interval: Int64
    private let version = Atomic<Int64>(0)
    /// Nanoseconds since `origin` of the last question; 0 before the first.
    private let checkedAt = Atomic<Int64>(0)
    private let origin = ContinuousClock.now

    /// Opens the connection to the file at `path`.
    /// - Parameter interval: how long an answer is reused (zero: every read asks).
    /// - Throws: ``StoreError`` when the file cannot be opened.
    /// - Parameter gatedByHistory: whether the file records history (then only data writes count).
    init(path: String, vfs: String?, interval: Duration, gatedByHistory: Bool = false) throws {
        // Asked on server threads: never wait long for a lock (a busy answer counts as a change).
        let db = try SQLiteConnection(path: path, readOnly: true, create: false, busyTimeout: 0.05, vfs: vfs)
        try db.execute("PRAGMA query_only = 1")
        connection = Locked(Watch(db: db))
        self.gatedByHistory = gatedByHistory
        self.interval = Self.nanoseconds(interval)
        _ = ask()
    }

    var current: Int64 {
        let now = Self.nanoseconds(ContinuousClock.now - origin)
        let last = checkedAt.load(ordering: .acquiring)
        if last != 0 && now - last < interval {
            return version.load(ordering: .acquiring)
        }
        return ask()
    }

    /// Asks SQLite; an error (the file busy beyond the timeout, say) counts as a change, so a
    /// reader reads again rather than serving what it kept.
    private func ask() -> Int64 {
        connection.withLock { watch -> Int64 in
            let answer: Int64
            do {
                let dataVersion = try Self.integer("PRAGMA data_version", on: watch.db)
                if gatedByHistory {
                    if dataVersion != watch.dataVersion {
                        let last = try Self.integer("SELECT seq FROM sqlite_sequence WHERE name = '_og_history_transaction'",
                                                    on: watch.db)
                        watch.answer = last + (1 << 40)
                    }
                    answer = watch.answer
                } else {
                    // data_version's own numbers are small and only compared with each other:
                    // keep them in the upper half, apart from the error answers below.
                    answer = dataVersion + (1 << 40)
                }
                watch.dataVersion = dataVersion
            } catch {
                watch.dataVersion = nil
                answer = -Self.nanoseconds(ContinuousClock.now - origin) - 1
            }
            version.store(answer, ordering: .releasing)
            checkedAt.store(max(1, Self.nanoseconds(ContinuousClock.now - origin)), ordering: .releasing)
            return answer
        }
    }

    /// The first column of the first row, 0 when there is none.
    private static func integer(_ sql: String, on db: SQLiteConnection) throws -> Int64 {
        let statement = try db.statement(sql)
        defer { statement.reset() }
        return try statement.step() ? statement.int(at: 0) : 0
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
