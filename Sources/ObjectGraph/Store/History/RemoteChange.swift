import Foundation

/// What other coordinators and processes committed to the store, as a coordinator noticed
/// it: one value of ``PersistentStoreCoordinator/remoteChanges``.
public struct RemoteChange: Sendable, Hashable {
    /// The store's history token after the commits (pass it to `history(after:)` later).
    public let historyToken: PersistentHistoryToken
    /// The other writers' transactions since the previous announcement, oldest first.
    /// Empty when history between the two was purged by someone else before it could be
    /// read (``isComplete`` is then false: refetch what you show).
    public let transactions: [PersistentHistoryTransaction]
    /// False when some transactions could not be read because history was purged meanwhile.
    public let isComplete: Bool
}

extension PersistentStoreCoordinator {
    /// Posted (on no particular thread) when the coordinator notices commits of other
    /// coordinators or processes. `object` is the coordinator; `userInfo` holds the history
    /// token under ``historyTokenKey``. The `Sendable` form is ``remoteChanges``.
    ///
    /// Posted after the coordinator's row cache dropped the rows those commits changed: a
    /// read that begins once it was posted sees them as committed (objects a context holds
    /// stay as they were until the changes are merged into it).
    public static let remoteChangeNotification = Notification.Name("ObjectGraphRemoteChange")
    /// The `userInfo` key of the ``remoteChangeNotification``'s ``PersistentHistoryToken``.
    public static let historyTokenKey = "historyToken"

    /// Commits of other coordinators and processes as the coordinator notices them (the
    /// store must be opened with `postsRemoteChangeNotifications`). Each call makes a new
    /// subscription; it ends when the coordinator goes away or the consumer stops.
    public var remoteChanges: AsyncStream<RemoteChange> {
        let (stream, continuation) = AsyncStream<RemoteChange>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let key = UUID()
        remoteSubscribers.withLock { $0[key] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.remoteSubscribers.withLock { $0.removeValue(forKey: key) }
        }
        return stream
    }

    /// Called by the monitor: forgets cached rows the other side changed, then announces.
    func announce(_ change: RemoteChange) {
        for transaction in change.transactions {
            for item in transaction.changes where item.kind != .insert { rowCache.invalidate(item.objectID) }
        }
        if !change.isComplete { rowCache.invalidateAll() }
        for continuation in remoteSubscribers.withLock({ Array($0.values) }) { continuation.yield(change) }
        NotificationCenter.default.post(name: Self.remoteChangeNotification, object: self,
                                        userInfo: [Self.historyTokenKey: change.historyToken])
    }
}
