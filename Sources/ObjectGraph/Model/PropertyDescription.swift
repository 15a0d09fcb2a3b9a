import Foundation

/// What happens to a relationship's destinations when its source object is deleted.
public enum DeleteRule: String, Sendable, Codable {
    /// Remove the deleted object from the destinations' inverse relationship.
    case nullify
    /// Delete the destinations too (recursively).
    case cascade
    /// Refuse the save while the relationship has destinations (validation error 1600).
    case deny
    /// Do nothing: the destinations keep pointing at the deleted object.
    case noAction
}

/// An attribute of an entity, derived from an `@Attribute` declaration.
public struct AttributeDescription: Sendable, Hashable {
    /// The property name, as declared in Swift.
    public let name: String
    public let type: AttributeType
    public let isOptional: Bool
    public let constraints: [AttributeConstraint]
    let defaultValue: StoredValue
    /// Whether persistent history records the attribute's old and new values: declared
    /// `@Attribute(.recordsValuesInHistory)`, or for the whole entity.
    public let recordsValuesInHistory: Bool

    public var isUnique: Bool { constraints.contains(.unique) }
    public var isIndexed: Bool { constraints.contains(.indexed) }
    /// Whether the store's full-text index covers the attribute (`.searchable`).
    public var isSearchable: Bool { constraints.contains(.searchable) }
    /// Whether the store keeps a substring index of the attribute (`.indexedForSubstringSearch`).
    public var isIndexedForSubstringSearch: Bool { constraints.contains(.indexedForSubstringSearch) }
    public var isPreservedInHistoryOnDeletion: Bool { constraints.contains(.preservedInHistoryOnDeletion) }
}

/// A relationship of an entity, derived from a `@Relationship` declaration.
public struct RelationshipDescription: Sendable, Hashable {
    public enum Cardinality: String, Sendable, Codable {
        case toOne, toMany, orderedToMany
    }
    /// The property name, as declared in Swift.
    public let name: String
    /// The destination entity's name.
    public let destinationEntityName: String
    public let cardinality: Cardinality
    /// The inverse relationship's name on the destination (resolved when the model is built).
    public internal(set) var inverseName: String
    public let deleteRule: DeleteRule
    /// For to-one: a destination is required at save. For to-many: see `minCount`.
    public let isRequired: Bool
    public let minCount: Int?
    public let maxCount: Int?
    /// To-one only: whether persistent history records the destination's ``ObjectID`` before
    /// and after each change, declared `@Relationship(recordsValuesInHistory: true)` or for
    /// the whole entity.
    public let recordsValuesInHistory: Bool

    public var isToMany: Bool { cardinality != .toOne }
}

/// A property: an attribute or a relationship, at a fixed index in its entity.
public enum PropertyDescription: Sendable, Hashable {
    case attribute(AttributeDescription)
    case relationship(RelationshipDescription)

    public var name: String {
        switch self {
        case .attribute(let a): return a.name
        case .relationship(let r): return r.name
        }
    }
}
