import Foundation

/// What changed in a context, by object ID: one value of ``ManagedObjectContext/changes``.
///
/// Saves, merges (from the parent, a sibling, an import context or another process) and
/// batch operations all arrive here alike, including changes to objects that are faults in
/// the context, so a list view can refresh from one stream.
public struct ChangeSet: Sendable, Hashable {
    public enum Origin: Sendable, Hashable {
        /// The context saved.
        case save
        /// Changes saved elsewhere were merged into the context.
        case merge
        /// Another coordinator or process committed them.
        case remote
        /// A batch insert, update or delete ran in SQL.
        case batch
    }

    public let origin: Origin
    /// The name of the context the changes come from, when known.
    public let context: String?
    public let inserted: Set<ObjectID>
    public let updated: Set<ObjectID>
    public let deleted: Set<ObjectID>

    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    public init(origin: Origin, context: String?, inserted: Set<ObjectID>, updated: Set<ObjectID>, deleted: Set<ObjectID>) {
        self.origin = origin
        self.context = context
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }
}

extension ChangeSet {
    /// The change set a `didSaveNotification` (or ObjectsDidChange) carries. `Notification`
    /// is not `Sendable`; a change set is, so it can be handed to another context's queue:
    ///
    /// ```swift
    /// let changes = ChangeSet(didSave: note)
    /// main.perform { main.mergeChanges(changes) }
    /// ```
    public init(didSave notification: Notification) {
        let info = notification.userInfo ?? [:]
        func ids(_ key: ManagedObjectContext.ChangeKey) -> Set<ObjectID> { info[key.rawValue] as? Set<ObjectID> ?? [] }
        self.init(origin: .save, context: (notification.object as? ManagedObjectContext)?.name,
                  inserted: ids(.inserted), updated: ids(.updated), deleted: ids(.deleted))
    }
}

extension ManagedObjectContext {
    /// The context's changes as they happen: an `AsyncSequence` of ``ChangeSet``s, for
    /// observers on any queue or task. Each call makes a new subscription; it ends when the
    /// context goes away or the consumer stops iterating.
    public var changes: AsyncStream<ChangeSet> {
        let (stream, continuation) = AsyncStream<ChangeSet>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let key = UUID()
        changeSubscribers.withLock { $0[key] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.changeSubscribers.withLock { $0.removeValue(forKey: key) }
        }
        return stream
    }

    func publish(_ changes: ChangeSet) {
        guard !changes.isEmpty else { return }
        for continuation in changeSubscribers.withLock({ Array($0.values) }) { continuation.yield(changes) }
    }
}
