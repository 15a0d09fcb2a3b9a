import Foundation

/// What a batch request wrote, by entity, before it becomes a ``BatchResult``.
package struct BatchOutcome: Sendable {
    package var inserted: [ObjectID] = []
    package var updated: [ObjectID] = []
    package var deleted: [ObjectID] = []
    /// Objects of other entities whose to-many inverse the batch changed.
    package var related: [ObjectID] = []
    package var historyToken: PersistentHistoryToken?

    package init() {}
}

/// The rows a batch delete starts from (before its delete rules add others).
package enum BatchDeleteSelection: Sendable {
    /// The rows matching a translated predicate (every row when nil).
    case condition(SQLFragment?)
    /// The rows with these primary keys.
    case keys([Int64])
}
