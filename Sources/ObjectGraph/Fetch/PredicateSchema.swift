import Foundation

/// What predicate translation needs to know about the model: which stored property a key
/// path names and how it is stored. The fetch machinery implements it over the real model;
/// tests can implement it over a hand-written schema.
protocol PredicateSchema {
    /// The steps a key path takes from `entity` (one step for `\Invoice.amount`; a key path
    /// through to-one relationships such as `\Invoice.client?.name` yields one step per
    /// property). Nil when the key path names no stored property (a computed one, say).
    func resolve(_ keyPath: AnyKeyPath, from entity: String) -> [ResolvedStep]?
}

/// One stored property on a key path, with what SQL needs to reach it.
struct ResolvedStep: Equatable {
    enum Kind: Equatable {
        /// A column of `table` holding an attribute of this type.
        case attribute(AttributeType)
        /// A to-one relationship: `column` of `table` holds the destination's `_pk`.
        case toOne(destinationEntity: String)
        /// A to-many relationship, stored as `mapping` says.
        case toMany(destinationEntity: String, mapping: SQLSchema.RelationshipMapping)
    }

    /// The entity that has the property.
    var entity: String
    /// The entity's table, quoted (`"Invoice"`).
    var table: String
    /// The property's column, quoted (`"amount"`); unused for to-many.
    var column: String
    var kind: Kind
}
