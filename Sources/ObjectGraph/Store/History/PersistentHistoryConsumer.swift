import Foundation
import Synchronization

/// Merges what other coordinators and processes commit into the contexts it is given, from
/// persistent history, and keeps its place in the store under its name.
///
/// ```swift
/// let consumer = try PersistentHistoryConsumer(name: "dashboard", coordinator: coordinator,
///                                              contexts: [writer, main])
/// consumer.start()   // merges each remote change as the coordinator notices it
/// ```
///
/// The cursor (the last transaction merged) is stored in the file, one per consumer name:
/// give each process role its own name, the same at every start. ``PersistentStoreCoordinator/purgeHistory(before:)``
/// never purges past the lowest cursor, so a consumer never loses a transaction it has not
/// merged, even across restarts; ``unregister()`` a name that is retired for good.
///
/// Contexts merge in the order given, each on its own queue (list a parent before its
/// children): registered objects are refreshed with their unsaved edits kept on top, deleted
/// ones report `isDeletedElsewhere`, and each context's ``ManagedObjectContext/changes``
/// carries a ``ChangeSet`` with origin `.remote`.
public final class PersistentHistoryConsumer: Sendable {
    public let name: String
    public let coordinator: PersistentStoreCoordinator
    public let contexts: [ManagedObjectContext]
    /// Whether transactions written by this consumer's own coordinator are merged too (off:
    /// they reach its contexts through their parents and merges already).
    public let includesOwnTransactions: Bool
    /// How often at most the cursor is written to the store: after a crash, at most this much
    /// is merged again (merging is idempotent), and between writes the write lock is left to
    /// the saves that matter.
    public let cursorWriteInterval: Duration

    private struct State {
        var cursor: PersistentHistoryToken
        var storedCursor: PersistentHistoryToken
        var lastStored = ContinuousClock.now
        var task: Task<Void, Never>?
        var lastError: String?
        var mergedTransactions = 0
        /// Set by `unregister()`: the cursor is never stored again.
        var isUnregistered = false
    }
    private let state: Locked<State>
    /// Serializes catch-ups, so transactions merge once and in order.
    private let catchUpLock = AsyncSerialGate()

    /// Registers the consumer (or resumes it where its cursor is).
    ///
    /// A new name starts at the store's current token: its contexts are assumed to read the
    /// store fresh.
    /// - Throws: ``PersistentHistoryError`` when history is off or the stored cursor has
    ///   expired (someone removed the cursor and purged).
    public init(name: String, coordinator: PersistentStoreCoordinator, contexts: [ManagedObjectContext],
                includesOwnTransactions: Bool = false, cursorWriteInterval: Duration = .milliseconds(500)) throws {
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { throw PersistentHistoryError.invalidConsumerName(name) }
        self.name = name
        self.coordinator = coordinator
        self.contexts = contexts
        self.includesOwnTransactions = includesOwnTransactions
        self.cursorWriteInterval = cursorWriteInterval
        let store = try coordinator.requireStore()
        try store.requireHistory()
        let cursor: PersistentHistoryToken
        if let stored = try store.cursor(named: name) {
            try store.validate(stored)
            cursor = stored
        } else {
            cursor = try coordinator.currentHistoryToken()
            try store.setCursor(named: name, to: cursor)
        }
        state = Locked(State(cursor: cursor, storedCursor: cursor))
    }

    /// The last transaction merged.
    public var cursor: PersistentHistoryToken { state.withLock { $0.cursor } }
    /// How many transactions this consumer has merged since it was made.
    public var mergedTransactionCount: Int { state.withLock { $0.mergedTransactions } }
    /// The last failure of a background catch-up, if any (it is retried at the next change).
    public var lastError: String? { state.withLock { $0.lastError } }

    /// Merges each remote change as the coordinator announces it (the store must be opened
    /// with `postsRemoteChangeNotifications`), after catching up with what came before.
    /// Announcements are of other writers' transactions only: with `includesOwnTransactions`,
    /// call ``catchUp()`` after your own saves too.
    public func start() {
        let changes = coordinator.remoteChanges
        let task = Task { [weak self] in
            await self?.catchUpRecordingFailure()
            for await _ in changes {
                guard let self else { return }
                await self.catchUpRecordingFailure()
            }
        }
        state.withLock { $0.task = task }
    }

    /// Stops merging and stores the cursor.
    /// - Throws: ``StoreError`` when the cursor cannot be written (the next start then merges
    ///   again what was merged since it was last written).
    public func stop() throws {
        state.withLock { $0.task?.cancel(); $0.task = nil }
        try storeCursor(force: true)
    }

    private func catchUpRecordingFailure() async {
        do { _ = try await catchUp() } catch {
            state.withLock { $0.lastError = "\(error)" }
        }
    }

    /// Merges every transaction after the cursor now, and returns them.
    @discardableResult
    public func catchUp() async throws -> [PersistentHistoryTransaction] {
        try await catchUpLock.run { () async throws -> [PersistentHistoryTransaction] in
            // Its history may be purged already: merging now could skip changes unseen.
            if state.withLock({ $0.isUnregistered }) { throw PersistentHistoryError.consumerUnregistered(name) }
            let store = try coordinator.requireStore()
            let after = cursor
            // Read together: the latest token and the transactions agree. Own transactions
            // are skipped, so the cursor moves to the latest token.
            let (transactions, latest) = try store.history(after: after, limit: nil,
                                                           excludingOwn: !includesOwnTransactions)
            if !transactions.isEmpty { await merge(transactions) }
            state.withLock {
                $0.cursor = max($0.cursor, transactions.last?.token ?? after, latest)
                $0.mergedTransactions += transactions.count
                $0.lastError = nil
            }
            try storeCursor(force: false)
            return transactions
        }
    }

    /// Forgets the consumer's cursor in the store, so purging is no longer held back by it.
    public func unregister() throws {
        state.withLock { $0.isUnregistered = true; $0.task?.cancel(); $0.task = nil }
        try coordinator.requireStore().setCursor(named: name, to: nil)
    }

    private func merge(_ transactions: [PersistentHistoryTransaction]) async {
        var inserted = Set<ObjectID>(), updated = Set<ObjectID>(), deleted = Set<ObjectID>()
        for transaction in transactions {
            for change in transaction.changes {
                switch change.kind {
                case .insert: inserted.insert(change.objectID)
                case .update: updated.insert(change.objectID)
                case .delete:
                    deleted.insert(change.objectID)
                    inserted.remove(change.objectID)
                    updated.remove(change.objectID)
                }
            }
        }
        updated.subtract(inserted)
        let authors = Set(transactions.compactMap { $0.author ?? $0.contextName })
        let source = authors.isEmpty ? "another process" : authors.sorted().joined(separator: ", ")
        let set = ChangeSet(origin: .remote, context: source, inserted: inserted, updated: updated, deleted: deleted)
        for context in contexts {
            await context.perform(schedule: .enqueued) {
                context.merge(inserted: set.inserted, updated: set.updated, deleted: set.deleted, origin: .remote, from: set.context)
            }
        }
    }

    /// Writes the cursor to the store at most once per ``cursorWriteInterval`` (a lagging
    /// stored cursor only keeps a little more history: never less).
    private func storeCursor(force: Bool) throws {
        let (cursor, due) = state.withLock { s -> (PersistentHistoryToken, Bool) in
            let due = !s.isUnregistered && s.cursor != s.storedCursor
                && (force || ContinuousClock.now - s.lastStored >= cursorWriteInterval)
            return (s.cursor, due)
        }
        guard due else { return }
        let store = try coordinator.requireStore()
        try store.setCursor(named: name, to: cursor)
        let unregisteredMeanwhile = state.withLock { s -> Bool in
            s.storedCursor = cursor
            s.lastStored = .now
            return s.isUnregistered
        }
        // `unregister()` ran while this write was under way: take the cursor out again, or
        // it would hold purging back for ever.
        if unregisteredMeanwhile { try store.setCursor(named: name, to: nil) }
    }
}
