import CSQLite
import Foundation

/// Notices commits that other coordinators and processes make to the store's file.
///
/// SQLite's `PRAGMA data_version` on a connection changes whenever another connection has
/// committed since the last check; asking is a read of the WAL's shared-memory header, so
/// checking every few milliseconds costs next to nothing. When it changes, the monitor reads
/// the history transactions after the last one it saw, leaves out its own store's writes,
/// and hands the rest to `announce`.
///
/// @unchecked Sendable: `connection`, `lastVersion` and `lastSeen` are only used on `queue`
/// (the timer's handler and `stop` run there); `timer` is set once before it starts.
final class RemoteChangeMonitor: @unchecked Sendable {
    private let store: SQLiteStore
    private let connection: SQLiteConnection
    private let queue = DispatchQueue(label: "ObjectGraph.RemoteChangeMonitor", qos: .userInitiated)
    private let interval: TimeInterval
    private var timer: DispatchSourceTimer?
    private var lastVersion: Int64 = -1
    private var lastSeen: PersistentHistoryToken

    init(store: SQLiteStore, interval: TimeInterval, busyTimeout: TimeInterval) throws {
        self.store = store
        self.interval = max(0.001, interval)
        connection = try SQLiteConnection(path: store.path, readOnly: true, create: false, busyTimeout: busyTimeout,
                                          vfs: store.vfs)
        try connection.execute("PRAGMA query_only = 1")
        // The version first: a commit landing between the two reads then changes the version
        // again, and the first check reads it (the other order could miss it until the next).
        lastVersion = try Self.dataVersion(connection)
        lastSeen = try store.currentHistoryToken(in: connection)
    }

    /// Starts checking; `announce` runs on the monitor's queue.
    func start(_ announce: @escaping @Sendable (RemoteChange) -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let nanoseconds = Int(interval * 1_000_000_000)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds),
                       leeway: .nanoseconds(nanoseconds / 10))
        timer.setEventHandler { [weak self] in
            guard let self, let change = self.check() else { return }
            announce(change)
        }
        self.timer = timer
        timer.resume()
    }

    func stop() {
        timer?.cancel()
    }

    deinit {
        timer?.cancel()
    }

    /// One check (on `queue`): nil when nobody else committed.
    private func check() -> RemoteChange? {
        guard let version = try? Self.dataVersion(connection), version != lastVersion else { return nil }
        lastVersion = version
        do {
            // One read transaction, so the token and the transactions agree.
            return try connection.transaction(immediate: false) { () throws -> RemoteChange? in
                let current = try store.currentHistoryToken(in: connection)
                guard current.transactionNumber > lastSeen.transactionNumber else { return nil }
                let transactions: [PersistentHistoryTransaction]
                var complete = true
                do {
                    transactions = try store.history(after: lastSeen, limit: nil, excludingOwn: true, in: connection)
                } catch PersistentHistoryError.tokenExpired {
                    // Someone purged what we had not read (we hold no cursor): say so.
                    transactions = []
                    complete = false
                }
                lastSeen = current
                guard !transactions.isEmpty || !complete else { return nil }
                return RemoteChange(historyToken: current, transactions: transactions, isComplete: complete)
            }
        } catch {
            // A busy or failing read: the version stays "unseen", so the next tick retries.
            lastVersion = -1
            return nil
        }
    }

    private static func dataVersion(_ db: SQLiteConnection) throws -> Int64 {
        let statement = try db.statement("PRAGMA data_version")
        defer { statement.reset() }
        _ = try statement.step()
        return statement.int(at: 0)
    }
}
