import Foundation

/// What a root context's save asks the store to write, in one transaction.
package struct SaveRequest: Sendable {
    struct Insert: Sendable {
        let id: ObjectID
        let entity: String
        let values: [StoredValue]
    }
    struct Update: Sendable {
        let id: ObjectID
        let entity: String
        let values: [StoredValue]
        /// The values when the context read the row: the base for conflict resolution.
        let base: [StoredValue]
        let expectedVersion: Int64
    }
    struct Delete: Sendable {
        let id: ObjectID
        let entity: String
        let expectedVersion: Int64
    }

    var inserts: [Insert] = []
    var updates: [Update] = []
    var deletes: [Delete] = []
    var mergePolicy: MergePolicy = .error
    /// Recorded in persistent history with the transaction.
    var author: String?
    var contextName: String?
    /// Permanent IDs of objects saved earlier whose temporary IDs a context still uses.
    var resolveTemporaryID: @Sendable (ObjectID) -> ObjectID? = { _ in nil }
    var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty }
}

/// What the store wrote.
package struct SaveResult: Sendable {
    /// Temporary ID → permanent ID of each inserted object.
    var permanentIDs: [ObjectID: ObjectID] = [:]
    /// The rows as written (IDs permanent, to-many relationships as written), with their new
    /// versions.
    var written: [ObjectID: RowSnapshot] = [:]
    /// Objects whose changes the `.rollback` policy dropped, with the store's row (nil:
    /// deleted elsewhere).
    var rolledBack: [ObjectID: RowSnapshot?] = [:]
    var deleted: Set<ObjectID> = []
    /// The persistent history transaction the save recorded (nil when history is off).
    var historyToken: PersistentHistoryToken?
}
