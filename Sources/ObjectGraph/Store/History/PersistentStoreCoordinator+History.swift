import Foundation

/// Persistent history: what every write to the store changed, by whom, in order.
///
/// ```swift
/// var description = PersistentStoreDescription.sqlite(at: url)
/// description.recordsHistory = true
/// try coordinator.addPersistentStore(description)
///
/// let token = try coordinator.currentHistoryToken()
/// // ... other processes write ...
/// for transaction in try coordinator.history(after: token) {
///     print(transaction.author ?? "-", transaction.changes.count)
/// }
/// ```
extension PersistentStoreCoordinator {
    /// Whether the store records persistent history.
    public var recordsHistory: Bool { storage.withLock { $0?.recordsHistory } ?? false }

    /// The token of the store's latest transaction.
    /// - Throws: ``PersistentHistoryError/notRecorded(path:)``, or ``StoreError``.
    public func currentHistoryToken() throws -> PersistentHistoryToken {
        let store = try requireStore()
        try store.requireHistory()
        return try store.currentHistoryToken()
    }

    /// The transactions after `token` (every one still kept when nil), oldest first.
    /// - Parameter limit: at most this many (the oldest ones).
    /// - Throws: ``PersistentHistoryError/tokenExpired(_:purgedThrough:)`` when history after
    ///   the token was purged, ``PersistentHistoryError/tokenOfAnotherStore(_:store:)``, ...
    public func history(after token: PersistentHistoryToken?, limit: Int? = nil) throws -> [PersistentHistoryTransaction] {
        let store = try requireStore()
        try store.requireHistory()
        return try store.history(after: token, limit: limit, excludingOwn: false).transactions
    }

    /// The transactions that changed one object, newest first by default, each holding only
    /// that object's changes (with their recorded ``PersistentHistoryChange/values``): who
    /// changed it, when, and from what to what. Deleted objects keep their history until it
    /// is purged.
    ///
    /// Reads along an index on (entity, primary key, transaction), so a page costs the same
    /// however long the whole history is. Page with `startingAfter`:
    ///
    /// ```swift
    /// let page = try coordinator.history(of: invoiceID, limit: 20)
    /// let next = try coordinator.history(of: invoiceID, limit: 20, startingAfter: page.last?.token)
    /// ```
    ///
    /// - Parameters:
    ///   - order: ``HistoryOrder/newestFirst`` or ``HistoryOrder/oldestFirst``.
    ///   - limit: at most this many transactions.
    ///   - startingAfter: continue past this transaction, in `order` (the last one of the
    ///     previous page).
    /// - Returns: nothing for a temporary ID (no row yet).
    /// - Throws: ``PersistentHistoryError/objectOfAnotherStore(_:store:)``,
    ///   ``PersistentHistoryError/tokenOfAnotherStore(_:store:)``; with ``HistoryOrder/oldestFirst``
    ///   also ``PersistentHistoryError/tokenExpired(_:purgedThrough:)`` for a token before a
    ///   purge (what follows it is gone); ``PersistentHistoryError/notRecorded(path:)``.
    public func history(of objectID: ObjectID, order: HistoryOrder = .newestFirst, limit: Int? = nil,
                        startingAfter token: PersistentHistoryToken? = nil) throws -> [PersistentHistoryTransaction] {
        let store = try requireStore()
        try store.requireHistory()
        return try store.history(of: objectID, order: order, limit: limit, startingAfter: token)
    }

    /// Deletes the history up to and including the transaction `token` marks (what a holder
    /// of `token` has seen), except what a registered ``PersistentHistoryConsumer`` of any
    /// process has not read yet.
    ///
    /// - Returns: the token history is now purged through; tokens before it fail with
    ///   ``PersistentHistoryError/tokenExpired(_:purgedThrough:)``.
    @discardableResult
    public func purgeHistory(before token: PersistentHistoryToken) throws -> PersistentHistoryToken {
        let store = try requireStore()
        try store.requireHistory()
        let through = try store.purgeHistory(through: token)
        return PersistentHistoryToken(storeIdentifier: store.identifier, transactionNumber: through)
    }
}
