import Foundation

/// Why a batch request was refused. Nothing was written in each case.
public enum BatchError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A key path does not name an attribute or to-one relationship of the entity.
    case unsupportedKeyPath(entity: String, keyPath: String)
    /// A to-one relationship whose inverse batch requests cannot keep in step (a to-one or
    /// an ordered to-many inverse): set it through a context instead.
    case unsupportedRelationship(entity: String, relationship: String, inverse: String)
    /// A to-one relationship was given an ID of another entity (or store), or a temporary ID.
    case invalidDestination(property: String, objectID: ObjectID)
    /// Rows that break the declared constraints, with their positions (0-based) in the request.
    case invalidRows([RowFailure])
    /// The predicate cannot be run in SQL.
    case untranslatablePredicate(String)
    /// An object ID that names another entity, another store, or a temporary object.
    case invalidObjectID(ObjectID)
    /// A `deny` delete rule: the objects still have destinations outside the request.
    case deleteDenied(entity: String, relationship: String, count: Int)
    /// Deleting would leave `count` objects' required relationship empty (a nullify rule on
    /// the other side). Delete those objects too, or cascade.
    case requiredRelationshipWouldBeEmpty(entity: String, relationship: String, count: Int)
    /// A unique attribute would take a value another row has.
    case uniquenessViolation(entity: String, properties: [String], message: String)
    /// The store failed (busy past the timeout, I/O).
    case storeFailure(StoreError)

    /// One row's failures.
    public struct RowFailure: Sendable, Equatable, CustomStringConvertible {
        public let row: Int
        public let property: String
        public let message: String
        public var description: String { "row \(row): \(message)" }
    }

    public var description: String {
        switch self {
        case .unsupportedKeyPath(let entity, let keyPath):
            return "\(keyPath) is not an attribute or to-one relationship of \(entity); batch requests set only those."
        case .unsupportedRelationship(let entity, let relationship, let inverse):
            return "\(entity).\(relationship) cannot be set by a batch request: its inverse \(inverse) is to-one or ordered, and only a context keeps such an inverse in step. Set it on the objects in a context."
        case .invalidDestination(let property, let id):
            return "\(property) cannot point at \(id): give the permanent ID of a saved object of the relationship's entity."
        case .invalidRows(let failures):
            let shown = failures.prefix(10).map(\.description).joined(separator: "; ")
            return "\(failures.count) invalid value(s), nothing written: \(shown)\(failures.count > 10 ? "; ..." : "")"
        case .untranslatablePredicate(let detail):
            return "The predicate cannot be run by the store: \(detail)"
        case .invalidObjectID(let id):
            return "\(id) does not name a saved object of this request's entity in this store."
        case .deleteDenied(let entity, let relationship, let count):
            return "\(entity) objects cannot be deleted while their \(relationship) has \(count) object(s) not being deleted (delete rule deny)."
        case .requiredRelationshipWouldBeEmpty(let entity, let relationship, let count):
            return "Deleting would leave \(relationship) of \(count) \(entity) object(s) empty, and it is required. Delete them too, or give them another."
        case .uniquenessViolation(let entity, let properties, _):
            return "Another \(entity) already has this \(properties.joined(separator: ", ")); nothing was written."
        case .storeFailure(let error):
            return "The store failed: \(error)"
        }
    }
}
