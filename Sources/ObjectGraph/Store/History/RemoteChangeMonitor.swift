import Foundation

/// Notices commits that other coordinators and processes make to the store.
///
/// It reads the store's ``StoreChangeSignal`` (on SQLite, `PRAGMA data_version`: a read of
/// the WAL's shared-memory header, so checking every few milliseconds costs next to nothing).
/// When the signal changes, the monitor reads the history transactions after the last one it
/// saw, leaves out its own store's writes, and hands the rest to `announce`.
///
/// @unchecked Sendable: `lastVersion` and `lastSeen` are only used on `queue` (the timer's
/// handler and `stop` run there); `timer` is set once before it starts.
final class RemoteChangeMonitor: @unchecked Sendable {
    private let store: any PersistentStore
    private let signal: any StoreChangeSignal
    private let queue = DispatchQueue(label: "ObjectGraph.RemoteChangeMonitor", qos: .userInitiated)
    private let interval: TimeInterval
    private var timer: DispatchSourceTimer?
    /// The signal's last value; nil until a check has read history successfully after it.
    private var lastVersion: Int64?
    private var lastSeen: PersistentHistoryToken

    init(store: any PersistentStore, interval: TimeInterval) throws {
        self.store = store
        self.interval = max(0.001, interval)
        signal = try store.makeChangeSignal(reusingAnswersFor: .zero)
        // The signal first: a commit landing between the two reads then changes the signal
        // again, and the first check reads it (the other order could miss it until the next).
        lastVersion = signal.current
        lastSeen = try store.currentHistoryToken()
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
        let version = signal.current
        guard version != lastVersion else { return nil }
        lastVersion = version
        do {
            let transactions: [PersistentHistoryTransaction]
            let latest: PersistentHistoryToken
            var complete = true
            do {
                // Read together, so the token and the transactions agree.
                (transactions, latest) = try store.history(after: lastSeen, limit: nil, excludingOwn: true)
            } catch PersistentHistoryError.tokenExpired {
                // Someone purged what we had not read (we hold no cursor): say so.
                (transactions, latest, complete) = ([], try store.currentHistoryToken(), false)
            }
            guard latest.transactionNumber > lastSeen.transactionNumber else { return nil }
            lastSeen = latest
            guard !transactions.isEmpty || !complete else { return nil }
            return RemoteChange(historyToken: latest, transactions: transactions, isComplete: complete)
        } catch {
            // A busy or failing read: the signal stays "unseen", so the next tick retries.
            lastVersion = nil
            return nil
        }
    }
}
