/// The Swift types a `@Relationship` property can have: `Destination?` (to-one),
/// `Set<Destination>` (to-many) and `[Destination]` (ordered to-many).
public protocol RelationshipValue {
    associatedtype Destination: ManagedObject
    static var cardinality: RelationshipDescription.Cardinality { get }
    init(relationshipObjects objects: [Destination])
    var relationshipObjects: [Destination] { get }
}

extension Optional: RelationshipValue where Wrapped: ManagedObject {
    public typealias Destination = Wrapped
    public static var cardinality: RelationshipDescription.Cardinality { .toOne }
    // Inlinable, like the conformances below: specialized where the entity is declared (no
    // generic metadata look-up per access).
    @inlinable public init(relationshipObjects objects: [Wrapped]) { self = objects.first }
    @inlinable public var relationshipObjects: [Wrapped] { map { [$0] } ?? [] }
}

extension Set: RelationshipValue where Element: ManagedObject {
    public typealias Destination = Element
    public static var cardinality: RelationshipDescription.Cardinality { .toMany }
    @inlinable public init(relationshipObjects objects: [Element]) { self.init(objects) }
    @inlinable public var relationshipObjects: [Element] { Array(self) }
}

extension Array: RelationshipValue where Element: ManagedObject {
    public typealias Destination = Element
    public static var cardinality: RelationshipDescription.Cardinality { .orderedToMany }
    @inlinable public init(relationshipObjects objects: [Element]) { self = objects }
    @inlinable public var relationshipObjects: [Element] { self }
}

/// Declares a relationship of a managed object; the model pairs it with its inverse.
///
/// ```swift
/// final class Client: ManagedObject {
///     @Relationship(inverse: \Invoice.client, deleteRule: .cascade) var invoices: Set<Invoice>
/// }
/// final class Invoice: ManagedObject {
///     @Relationship(isRequired: true) var client: Client?
/// }
/// ```
///
/// Setting one side updates the other at once. The inverse needs to be named on one side
/// only. To-one relationships are optional in Swift; `isRequired` is checked at save, so a
/// form can hold an object without one until the user picks it.
@propertyWrapper
public struct Relationship<Value: RelationshipValue> {
    // Two bytes: one per declared property of every object in memory.
    @usableFromInline let index: UInt16

    /// - Parameters:
    ///   - inverse: the destination's property that points back (needed on one side).
    ///   - deleteRule: what deleting this object does to the destinations.
    ///   - isRequired: to-one only: a destination must be set at save.
    ///   - minCount: to-many only: at least this many destinations at save.
    ///   - maxCount: to-many only: at most this many destinations at save.
    ///   - recordsValuesInHistory: to-one only: persistent history records the destination's
    ///     object ID before and after each change (see ``PersistentHistoryChange/values``).
    public init(inverse: PartialKeyPath<Value.Destination>? = nil,
                deleteRule: DeleteRule = .nullify,
                isRequired: Bool = false,
                minCount: Int? = nil,
                maxCount: Int? = nil,
                recordsValuesInHistory: Bool = false) {
        let state = ThreadState.current
        index = state.takeIndex()
        if case .describing = state.mode {
            state.declarations.append(.relationship(
                destination: Value.Destination.self, cardinality: Value.cardinality,
                inverse: inverse, deleteRule: deleteRule, isRequired: isRequired,
                minCount: minCount, maxCount: maxCount, recordsValuesInHistory: recordsValuesInHistory))
        }
    }

    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        get {
            let objects = object._relatedObjects(at: Int(object[keyPath: storageKeyPath].index))
            return Value(relationshipObjects: objects.compactMap { $0 as? Value.Destination })
        }
        set {
            object._setRelatedObjects(newValue.relationshipObjects, at: Int(object[keyPath: storageKeyPath].index))
        }
    }

    @available(*, unavailable, message: "@Relationship is only available on ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }
    }
}
