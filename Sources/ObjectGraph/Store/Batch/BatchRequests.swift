import Foundation

/// Inserts rows in SQL, in one transaction, without making objects: no context sees them
/// until it fetches or merges the result (``BatchResult/changes``).
///
/// Each row is checked against the attributes' declared constraints (required, ranges,
/// lengths, patterns) and required to-one relationships before anything is written; a
/// custom `validate()` does not run (there is no object). Unset attributes take their
/// declared defaults. Uniqueness is enforced by the store.
///
/// ```swift
/// let request = BatchInsertRequest<Invoice>(rows: rows)
/// let result = try coordinator.execute(request)
/// ```
public struct BatchInsertRequest<Entity: ManagedObject> {
    /// Makes the row source for one execution (so a request of rows can run again).
    let makeRowSource: () -> () -> PropertyValues<Entity>?

    /// Inserts these rows, in order.
    public init(rows: [PropertyValues<Entity>]) {
        makeRowSource = {
            var iterator = rows.makeIterator()
            return { iterator.next() }
        }
    }

    /// Inserts the rows `nextRow` returns until it returns nil: rows are made one at a time,
    /// inside the write transaction, so a large import need not hold them all in memory.
    ///
    /// `nextRow` runs while the store's write lock is held: it must not use the coordinator
    /// (no fetch, save or other batch request), or it waits for itself.
    public init(nextRow: @escaping () -> PropertyValues<Entity>?) {
        makeRowSource = { nextRow }
    }
}

/// Sets properties of every row matching a predicate, in one SQL statement, without
/// loading objects. Row versions are bumped: a context that read an updated row before
/// gets a conflict (or its merge policy's result) at its next save of that object.
///
/// ```swift
/// var paid = PropertyValues<Invoice>()
/// paid.set(\.status, to: "paid")
/// let result = try coordinator.execute(BatchUpdateRequest(predicate: #Predicate<Invoice> { $0.status == "sent" }, set: paid))
/// ```
public struct BatchUpdateRequest<Entity: ManagedObject> {
    public var predicate: Predicate<Entity>?
    public var values: PropertyValues<Entity>

    /// - Parameter predicate: which rows; nil for all of them.
    public init(predicate: Predicate<Entity>? = nil, set values: PropertyValues<Entity>) {
        self.predicate = predicate
        self.values = values
    }
}

/// Deletes rows in SQL without loading objects, applying the model's delete rules there:
/// cascades delete their destinations (recursively), nullify clears the inverse references,
/// deny refuses the whole request while destinations outside it remain, and a nullify that
/// would leave a required relationship empty refuses it too. Nothing is deleted when the
/// request is refused.
///
/// ```swift
/// try coordinator.execute(BatchDeleteRequest<Invoice>(predicate: #Predicate { $0.status == "cancelled" }))
/// ```
public struct BatchDeleteRequest<Entity: ManagedObject> {
    enum Selection {
        case predicate(Predicate<Entity>?)
        case objectIDs([ObjectID])
    }
    let selection: Selection

    /// Deletes the rows matching `predicate` (all of them when nil).
    public init(predicate: Predicate<Entity>?) {
        selection = .predicate(predicate)
    }

    /// Deletes these objects (IDs of other entities or stores are refused; temporary IDs
    /// name nothing in the store and are refused too).
    public init(objectIDs: [ObjectID]) {
        selection = .objectIDs(objectIDs)
    }
}

/// What a batch request did.
public struct BatchResult: Sendable, Hashable {
    /// The rows of the request's entity inserted, updated or deleted.
    public let objectIDs: [ObjectID]
    /// Every object the request changed, delete rules included (cascaded deletes, nullified
    /// references): merge it into contexts with `mergeChanges(_:)`, or
    /// ``ManagedObjectContext/execute(_:)-9lq2f`` does it for the context's chain.
    public let changes: ChangeSet
    /// The persistent history transaction it recorded (nil when history is off or nothing
    /// changed).
    public let historyToken: PersistentHistoryToken?

    /// How many rows of the request's entity changed.
    public var count: Int { objectIDs.count }
}
