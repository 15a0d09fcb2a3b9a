import Foundation

/// Passed to ``ManagedObject/init(_:)`` when ObjectGraph itself creates an object (a fault, a
/// fetched object, a model prototype). Only ObjectGraph can make one.
public struct Materialization {
    enum Kind { case prototype, fault(ObjectID, ManagedObjectContext, EntityDescription) }
    let kind: Kind
}

/// The base class of every entity. Subclass it once per entity, declaring the properties with
/// `@Attribute` and `@Relationship`:
///
/// ```swift
/// final class Client: ManagedObject {
///     @Attribute(.required) var name: String
///     @Attribute(.unique) var email: String?
///     @Relationship(inverse: \Invoice.client, deleteRule: .cascade) var invoices: Set<Invoice>
/// }
/// ```
///
/// A managed object belongs to one context and must only be used on that context's queue
/// (inside `perform`, `performAndWait` or `await context.perform`). It is deliberately not
/// `Sendable`: pass its ``objectID`` between queues instead.
open class ManagedObject: Hashable, CustomStringConvertible {
    enum Lifecycle: UInt8 {
        /// The model's prototype: reads record which property a key path names.
        case prototype
        /// Values not loaded yet: the first read loads them.
        case fault
        /// Values loaded.
        case loaded
    }

    /// The object's identity. Temporary after insertion; permanent once the root context
    /// saves (or after `obtainPermanentIDs(for:)`).
    public internal(set) var objectID: ObjectID

    /// The context the object belongs to; nil after the context is reset or deallocated.
    public internal(set) weak var managedObjectContext: ManagedObjectContext?

    /// The entity of the object's class.
    public let entity: EntityDescription

    // All state below is owned by the context's queue. (The one-byte fields come last, so
    // that they pack together without padding: every fetched row is one such object.)
    /// Current values by property index; empty while a fault.
    var values: [StoredValue] = []
    /// Values as last loaded or saved: the base for `changedValues()`, rollback and conflicts.
    var baseValues: [StoredValue] = []
    /// The row version the base values were read at (0 for inserted objects).
    var rowVersion: Int64 = 0
    var lifecycle: Lifecycle
    var isInsertedFlag = false
    var isDeletedFlag = false
    var isDeletedElsewhereFlag = false
    /// The object holds a reference on its row cache entry (released in deinit).
    var holdsRowCacheEntry = false
    /// Listed in the context's changes for the next ObjectsDidChange notification.
    var isAwaitingNotification = false
    /// Counted among the context's changed objects (`PendingChanges`).
    var isChangeNoted = false
    /// Has an entry in the context's list of changed objects (noted, or forgotten since).
    var isListedAsChanged = false

    /// Creates an object and inserts it into `context`.
    ///
    /// Call it on the context's queue. Default values of the declarations are applied, then
    /// `awakeFromInsert()` runs.
    public required init(context: ManagedObjectContext) {
        let state = ThreadState.current
        guard let entity = context.model.entitiesByType[ObjectIdentifier(Self.self)] else {
            preconditionFailure("\(Self.self) is not an entity of this context's model; add it to ManagedObjectModel(entities:)")
        }
        self.entity = entity
        self.objectID = ObjectID.makeTemporary(entityCode: entity.code)
        self.lifecycle = .loaded
        self.managedObjectContext = context
        // Read before the reset, which then keeps the state's buffer instead of replacing it.
        self.values = Self.normalizedDefaults(state.defaults, entity: entity)
        state.reset()
        context.insert(self)
        awakeFromInsert()
    }

    /// Used by ObjectGraph to create faults and prototypes; do not call it yourself.
    public required init(_ materialization: Materialization) {
        let state = ThreadState.current
        switch materialization.kind {
        case .prototype:
            // The model reads the declarations from the state and resets it.
            self.entity = ManagedObject.placeholderEntity
            self.objectID = ObjectID.makeTemporary(entityCode: 0)
            self.lifecycle = .prototype
        case let .fault(id, context, entity):
            state.reset()
            self.entity = entity
            self.objectID = id
            self.lifecycle = .fault
            self.managedObjectContext = context
        }
    }

    deinit {
        if let context = managedObjectContext {
            context.objectWillDeinit(self)
        }
    }

    /// `defaults` holds the attributes' defaults in declaration order (relationship wrappers
    /// record none); a new object's relationships are loaded and empty.
    ///
    /// Made in one pass into an array of its own, rather than as a copy of the entity's
    /// template overwritten in place: that copied the template on the first write, then
    /// replaced each attribute's value, for every object made.
    private static func normalizedDefaults(_ defaults: [StoredValue], entity: EntityDescription) -> [StoredValue] {
        let template = entity.newObjectValues
        let indices = entity.attributeIndices
        var values: [StoredValue] = []
        values.reserveCapacity(template.count)
        var n = 0
        for i in template.indices {
            if n < indices.count && indices[n] == i {
                values.append(n < defaults.count ? defaults[n] : template[i])
                n += 1
            } else {
                values.append(template[i])
            }
        }
        return values
    }

    static let placeholderEntity = EntityDescription(
        name: "", objectType: ManagedObject.self, properties: [], uniquenessIndices: [])

    // MARK: Overridable hooks

    /// Called once after the object is created with `init(context:)`: set up derived defaults.
    open func awakeFromInsert() {}

    /// Custom validation, run at every save of an inserted or updated object (after the
    /// declared constraints). Return a failure per problem; all failures of one save are
    /// reported together.
    open func validate() -> [ValidationFailure] { [] }

    /// Groups of attributes whose values together are unique among the entity's objects
    /// (single attributes can use `@Attribute(.unique)` instead).
    ///
    /// ```swift
    /// override class var uniquenessConstraints: [[AnyKeyPath]] { [[\Client.name, \Client.city]] }
    /// ```
    open class var uniquenessConstraints: [[AnyKeyPath]] { [] }

    /// Whether persistent history records the values of every attribute and to-one
    /// relationship of the entity, as `@Attribute(.recordsValuesInHistory)` does for one.
    ///
    /// ```swift
    /// override class var recordsValuesInHistory: Bool { true }
    /// ```
    open class var recordsValuesInHistory: Bool { false }

    /// Compound indexes: each a list of attributes (or to-one relationships) the store keeps
    /// one index on, in this order, for fetches and counts that filter by the first ones and
    /// sort by the next (single attributes can use `@Attribute(.indexed)` instead).
    ///
    /// ```swift
    /// // status == .sent, sorted by issueDate: read in index order, nothing sorted
    /// override class var indexes: [[AnyKeyPath]] { [[\Invoice.status, \Invoice.issueDate]] }
    /// ```
    ///
    /// Not part of the model's version hash: a store gets a declared index when it opens
    /// (`CREATE INDEX`, named `_og_index:Invoice(status,issueDate)`), and loses the indexes
    /// under that prefix that no longer are declared, since an index nobody reads still costs
    /// every insert and update. Indexes the store did not make are never touched.
    open class var indexes: [[AnyKeyPath]] { [] }

    // MARK: State

    /// Whether the object's values have not been loaded yet.
    public var isFault: Bool { lifecycle == .fault }
    /// Whether the object was inserted and not yet saved.
    public var isInserted: Bool { isInsertedFlag }
    /// Whether the object is marked for deletion at the next save.
    public var isDeleted: Bool { isDeletedFlag }
    /// Whether the object has property changes not yet saved.
    public var isUpdated: Bool {
        !isInsertedFlag && !isDeletedFlag && lifecycle == .loaded && values != baseValues
    }
    /// Whether the object is inserted, updated or deleted.
    public var hasChanges: Bool { isInsertedFlag || isDeletedFlag || isUpdated }
    /// Whether the object's row was deleted by another context or process. Reading it still
    /// works (its last known values); saving a change to it reports a conflict.
    public var isDeletedElsewhere: Bool { isDeletedElsewhereFlag }

    public var description: String {
        "<\(entity.name) \(objectID)\(isFault ? " fault" : "")>"
    }

    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    /// What `Set` and `Dictionary` hash an object with: its address mixed with the table's
    /// seed, rather than SipHash (a to-many relationship read as a `Set` hashes every member).
    public func _rawHashValue(seed: Int) -> Int {
        let address = UInt64(UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()))
        return Int(truncatingIfNeeded: mixedHashBits(address ^ UInt64(bitPattern: Int64(seed))))
    }
}
