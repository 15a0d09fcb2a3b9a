import Foundation

/// Why an aggregate request could not be run. Each message says what to write instead.
public enum AggregateError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The request's entity is not in the context's model.
    case unknownEntity(String)
    /// The predicate uses an expression ObjectGraph cannot translate to SQL.
    case untranslatablePredicate(String)
    /// A group key or an aggregated key path names no stored attribute: a computed property,
    /// or a relationship itself.
    case notAStoredAttribute(keyPath: String, entity: String)
    /// A group key or an aggregated key path goes through a to-many relationship, which
    /// would put one object in several groups, or give one object several values.
    case throughToMany(keyPath: String, relationship: String, destination: String)
    /// The function does not apply to the attribute's type (the sum of a string, say).
    case unsupportedFunction(String, keyPath: String, type: AttributeType)
    /// An integer sum does not fit in 64 bits.
    case overflow(String)
    /// A stored value is not a value of the result's type (a raw value that is no case of
    /// the enumeration, say).
    case unrepresentableValue(String, as: String)
    /// The store could not be read.
    case storeFailure(StoreError)

    public var description: String {
        switch self {
        case .unknownEntity(let name):
            return "\(name) is not an entity of this context's model; add it to ManagedObjectModel(entities:)."
        case .untranslatablePredicate(let detail):
            return "The predicate cannot be run by the store: \(detail)"
        case .notAStoredAttribute(let keyPath, let entity):
            return "\(keyPath) names no stored attribute of \(entity) (a computed property or a relationship): "
                + "group and aggregate by @Attribute properties, or by an attribute through to-one relationships "
                + "such as \\Invoice.client?.country."
        case .throughToMany(let keyPath, let relationship, let destination):
            return "\(keyPath) goes through the to-many relationship \(relationship), so one object would fall in "
                + "several groups: aggregate \(destination) instead, grouped by an attribute reached through its "
                + "to-one inverse."
        case .unsupportedFunction(let function, let keyPath, let type):
            return "Cannot take the \(function) of \(keyPath), a \(type.rawValue) attribute: sum and average take "
                + "int, int64, double and decimal attributes; min and max also take dates and strings; "
                + "count(_:) takes any attribute."
        case .overflow(let keyPath):
            return "The sum of \(keyPath) does not fit in a 64-bit integer: narrow the predicate, or store the "
                + "attribute as a Decimal."
        case .unrepresentableValue(let value, let type):
            return "The stored value \(value) is not a \(type): the file holds a value this model does not declare; "
                + "correct the row, or widen the property's type."
        case .storeFailure(let error):
            return "The store could not be read: \(error)"
        }
    }
}
