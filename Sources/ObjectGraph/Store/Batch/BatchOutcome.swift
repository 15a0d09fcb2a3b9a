import Foundation

/// What a batch request wrote, by entity, before it becomes a ``BatchResult``.
package struct BatchOutcome: Sendable {
    var inserted: [ObjectID] = []
    var updated: [ObjectID] = []
    var deleted: [ObjectID] = []
    /// Objects of other entities whose to-many inverse the batch changed.
    var related: [ObjectID] = []
    var historyToken: PersistentHistoryToken?
}

/// The rows a batch delete starts from (before its delete rules add others).
package enum BatchDeleteSelection: Sendable {
    /// The rows matching a translated predicate (every row when nil).
    case condition(SQLFragment?)
    /// The rows with these primary keys.
    case keys([Int64])
}
