import Foundation
import Synchronization

/// An entity of the model: its name, its class and its properties, derived from the class.
///
/// Immutable once the model is built, apart from a cache of resolved key paths.
public final class EntityDescription: Sendable, CustomStringConvertible {
    /// The entity's name: the class name.
    public let name: String
    /// The managed object subclass that declares the entity.
    public let objectType: ManagedObject.Type
    /// Every property, in declaration order; a property's index is its position here.
    public let properties: [PropertyDescription]
    /// Uniqueness constraints: each a set of attribute names whose values together are unique.
    public let uniquenessConstraints: [[String]]
    /// Compound indexes (``ManagedObject/indexes``): each a list of attribute or to-one
    /// relationship names, in index order.
    public let indexes: [[String]]

    /// The entity's number in ``ObjectID``s (see `InternTable`).
    let code: UInt32
    package let propertyIndexByName: [String: Int]
    /// The properties' names in index order, for ``propertyIndex(named:)``.
    private let propertyNames: [String]
    /// For each property, where a relationship's inverse is; nil for attributes. Read on every
    /// relationship change instead of the descriptions and two look-ups by name.
    let links: [RelationshipLink?]
    package let attributeIndices: [Int]
    /// A new object's values before its declarations' defaults are evaluated: each
    /// attribute's recorded default, relationships empty (a to-many loaded and empty).
    let newObjectValues: [StoredValue]
    let relationshipIndices: [Int]
    let uniquenessIndices: [[Int]]
    /// The properties whose values persistent history records (attributes and to-one
    /// relationships), in declaration order.
    package let historyValueIndices: [Int]
    /// Indices of the attributes declared `.searchable`, in declaration order: the columns
    /// of the entity's full-text index.
    let searchableIndices: [Int]

    // Key path → property path, resolved by reading the key path on the prototype.
    // Guarded by `keyPathLock`: many queues resolve key paths (fetches, sorts) at once.
    // (The lock guards a critical section rather than holding the dictionary: key paths are
    // not Sendable, though immutable, so they stay beside the lock rather than in its value.)
    private let keyPathLock = Locked()
    nonisolated(unsafe) private var keyPathCache: [AnyKeyPath: [PropertyStep]] = [:]

    init(name: String, objectType: ManagedObject.Type, properties: [PropertyDescription],
         uniquenessIndices: [[Int]], indexes: [[Int]] = [], links: [RelationshipLink?] = []) {
        self.links = links.count == properties.count ? links : properties.map { _ in nil }
        self.name = name
        self.code = name.isEmpty ? 0 : ObjectID.entityCode(for: name)
        self.objectType = objectType
        self.properties = properties
        var byName: [String: Int] = [:]
        for (i, p) in properties.enumerated() { byName[p.name] = i }
        self.propertyIndexByName = byName
        self.propertyNames = properties.map(\.name)
        self.attributeIndices = properties.indices.filter {
            if case .attribute = properties[$0] { return true } else { return false }
        }
        self.newObjectValues = properties.map {
            switch $0 {
            case .attribute(let a): return a.defaultValue
            case .relationship(let r): return r.isToMany ? .references([]) : .null
            }
        }
        self.relationshipIndices = properties.indices.filter {
            if case .relationship = properties[$0] { return true } else { return false }
        }
        self.uniquenessIndices = uniquenessIndices
        self.historyValueIndices = properties.indices.filter {
            switch properties[$0] {
            case .attribute(let a): return a.recordsValuesInHistory
            case .relationship(let r): return r.recordsValuesInHistory
            }
        }
        self.searchableIndices = properties.indices.filter {
            if case .attribute(let a) = properties[$0] { return a.isSearchable } else { return false }
        }
        self.uniquenessConstraints = uniquenessIndices.map { $0.map { properties[$0].name } }
        self.indexes = indexes.map { $0.map { properties[$0].name } }
    }

    /// The index of the property named `name`. An entity has a few properties: comparing
    /// the name with each (a word compare for short names) costs a tenth of hashing it, which
    /// every dynamic access (`value(forKey:)`, `objectIDs(forRelationshipNamed:)`) paid.
    package func propertyIndex(named name: String) -> Int? {
        guard propertyNames.count <= 16 else { return propertyIndexByName[name] }
        return propertyNames.firstIndex(of: name)
    }

    /// The attribute with this name, if any.
    public func attribute(named name: String) -> AttributeDescription? {
        guard let i = propertyIndex(named: name), case .attribute(let a) = properties[i] else { return nil }
        return a
    }

    /// The relationship with this name, if any.
    public func relationship(named name: String) -> RelationshipDescription? {
        guard let i = propertyIndex(named: name), case .relationship(let r) = properties[i] else { return nil }
        return r
    }

    public var attributes: [AttributeDescription] {
        attributeIndices.compactMap { if case .attribute(let a) = properties[$0] { return a } else { return nil } }
    }

    /// The attributes declared `.searchable`: what a full-text search of the entity reads.
    public var searchableAttributes: [AttributeDescription] {
        searchableIndices.compactMap { if case .attribute(let a) = properties[$0] { return a } else { return nil } }
    }

    /// The attributes declared `.indexedForSubstringSearch`, in declaration order: the columns
    /// of the entity's substring index.
    public var substringIndexedAttributes: [AttributeDescription] {
        attributes.filter(\.isIndexedForSubstringSearch)
    }

    public var relationships: [RelationshipDescription] {
        relationshipIndices.compactMap { if case .relationship(let r) = properties[$0] { return r } else { return nil } }
    }

    /// Whether the property at `index` is an ordered to-many relationship (its order counts).
    func isOrderedToMany(at index: Int) -> Bool {
        relationshipDescription(at: index)?.cardinality == .orderedToMany
    }

    func relationshipDescription(at index: Int) -> RelationshipDescription? {
        if case .relationship(let r) = properties[index] { return r } else { return nil }
    }

    public var description: String { "Entity \(name) (\(properties.map(\.name).joined(separator: ", ")))" }

    func cachedPath(for keyPath: AnyKeyPath) -> [PropertyStep]? {
        keyPathLock.withLock { keyPathCache[keyPath] }
    }

    func cachePath(_ path: [PropertyStep], for keyPath: AnyKeyPath) {
        keyPathLock.withLock { keyPathCache[keyPath] = path }
    }
}

/// A relationship and its inverse, by index: what keeping both sides in step needs.
struct RelationshipLink: Sendable {
    let isToMany: Bool
    /// The inverse's index among the destination entity's properties.
    let inverseIndex: Int
    let inverseIsToMany: Bool
}

/// One step of a resolved key path: a property of an entity.
struct PropertyStep: Sendable, Hashable {
    let entityName: String
    let index: Int
}
