import Foundation

/// One write to the store, as persistent history recorded it: a save of a root context, or
/// a batch request.
public struct PersistentHistoryTransaction: Sendable, Hashable, Identifiable {
    /// Increases with every transaction of the store; never reused, even after purging.
    public let number: Int64
    /// The token of the state right after this transaction.
    public let token: PersistentHistoryToken
    public let timestamp: Date
    /// The saving context's `transactionAuthor`.
    public let author: String?
    /// The saving context's `name`.
    public let contextName: String?
    /// The process that wrote it.
    public let processID: Int32
    /// The changes, in the order they were written.
    public let changes: [PersistentHistoryChange]

    public var id: Int64 { number }

    /// The transaction's object IDs by kind of change, in the form
    /// `ManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)` takes.
    public var objectIDsByChange: [ManagedObjectContext.ChangeKey: [ObjectID]] {
        var result: [ManagedObjectContext.ChangeKey: [ObjectID]] = [:]
        for change in changes {
            switch change.kind {
            case .insert: result[.inserted, default: []].append(change.objectID)
            case .update: result[.updated, default: []].append(change.objectID)
            case .delete: result[.deleted, default: []].append(change.objectID)
            }
        }
        return result
    }
}

/// One object's change within a ``PersistentHistoryTransaction``.
public struct PersistentHistoryChange: Sendable, Hashable {
    public enum Kind: Int, Sendable, Hashable, Codable {
        case insert = 0, update = 1, delete = 2
    }

    public let objectID: ObjectID
    public let kind: Kind
    /// For updates: the names of the properties the transaction changed.
    public let updatedProperties: Set<String>
    /// For deletes: the values of the attributes declared
    /// `@Attribute(.preservedInHistoryOnDeletion)`, as they were when the row was deleted.
    public let tombstone: Tombstone?
    /// The values of the properties that record them (`@Attribute(.recordsValuesInHistory)`,
    /// `@Relationship(recordsValuesInHistory: true)`, or `recordsValuesInHistory` on the
    /// entity), by property name: for an insert every such property's new value, for a
    /// delete every old value, for an update old and new of each one whose value in the file
    /// changed. Other properties are never here.
    ///
    /// ```swift
    /// if let amount = change.values["amount"] {
    ///     print("amount \(amount.old?.description ?? "-") → \(amount.new?.description ?? "-")")
    /// }
    /// ```
    public let values: [String: HistoryValueChange]
}

/// The attribute values persistent history keeps of a deleted object.
///
/// ```swift
/// if let email = change.tombstone?.value("email", as: String.self) { ... }
/// ```
public struct Tombstone: Sendable, Hashable {
    let values: [String: StoredValue]

    /// The names of the attributes it holds.
    public var attributeNames: Set<String> { Set(values.keys) }

    /// The attribute's value; nil when it was nil, is not kept, or is not a `V`.
    public func value<V: AttributeValue>(_ attribute: String, as type: V.Type = V.self) -> V? {
        guard let stored = values[attribute] else { return nil }
        return V(storedValue: StoredValueBox(stored))
    }
}
