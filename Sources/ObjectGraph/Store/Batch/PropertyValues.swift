import Foundation

/// Values for some properties of an entity, by key path: a row of a ``BatchInsertRequest``,
/// or what a ``BatchUpdateRequest`` sets. Attributes take their Swift values; to-one
/// relationships take the destination's ``ObjectID`` (batch requests load no objects).
///
/// ```swift
/// var row = PropertyValues<Invoice>()
/// row.set(\.identifier, to: "INV-0001")
/// row.set(\.amount, to: Decimal(120))
/// row.set(\.client, to: clientID)
/// ```
public struct PropertyValues<Entity: ManagedObject> {
    enum Target {
        case attribute(AttributeType)
        case toOne(destination: ManagedObject.Type)
    }
    struct Assignment {
        let keyPath: AnyKeyPath
        let target: Target
        let value: StoredValue
    }
    private(set) var assignments: [Assignment] = []

    public init() {}

    /// Sets an attribute (`nil` for an optional attribute stores nil).
    public mutating func set<Value: AttributeValue>(_ keyPath: KeyPath<Entity, Value>, to value: Value) {
        assign(Assignment(keyPath: keyPath, target: .attribute(Value.attributeType), value: value.storedValueBox.value))
    }

    /// Sets a to-one relationship to the object with this ID (`nil`: no destination).
    public mutating func set<Destination: ManagedObject>(_ keyPath: KeyPath<Entity, Destination?>, to id: ObjectID?) {
        assign(Assignment(keyPath: keyPath, target: .toOne(destination: Destination.self), value: id.map(StoredValue.reference) ?? .null))
    }

    /// Appends: when a key path is set twice, the later value wins where the assignments
    /// are resolved (comparing key paths here would cost more than the row's SQL).
    private mutating func assign(_ assignment: Assignment) {
        assignments.append(assignment)
    }

    /// Whether no property is set.
    public var isEmpty: Bool { assignments.isEmpty }
}
