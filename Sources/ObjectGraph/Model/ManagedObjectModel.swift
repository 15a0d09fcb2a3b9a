import Foundation
import Synchronization

/// The entities of an object graph, derived from their classes: declared once, in Swift.
///
/// ```swift
/// let model = try ManagedObjectModel(entities: [Client.self, Invoice.self])
/// ```
///
/// Building the model instantiates one prototype of each class to read its `@Attribute` and
/// `@Relationship` declarations, pairs each relationship with its inverse and computes a
/// version hash that stores record.
public final class ManagedObjectModel: Sendable {
    /// The entities, in the order given.
    public let entities: [EntityDescription]
    /// A hash of everything that shapes the store's schema; stores record it.
    public let versionHash: String
    /// The model's version, which stores record beside the hash. A file written by a later
    /// version is refused; one written by an earlier version is migrated by the store
    /// description's ``MigrationPlan``. Files written before versions were recorded count as
    /// version 1.
    public let version: Int

    let entitiesByName: [String: EntityDescription]
    let entitiesByType: [ObjectIdentifier: EntityDescription]
    /// Entities by their number in ``ObjectID``s (a process-wide number, so the array has
    /// holes for other models' entities).
    private let entitiesByCode: [EntityDescription?]
    let schema: ModelSchema
    let prototypes: PrototypeRegistry

    /// Builds the model from the entity classes.
    /// - Parameter version: the model's version (1 and up); raise it, with a stage of the
    ///   ``MigrationPlan``, whenever the model changes in a way stores cannot take in place.
    /// - Throws: ``ModelError`` when a declaration cannot be mapped (a relationship to a class
    ///   not listed, a missing or inconsistent inverse, an unresolvable key path), or for a
    ///   version below 1.
    public init(entities types: [ManagedObject.Type], version: Int = 1) throws {
        guard version >= 1 else { throw ModelError.invalidVersion(version) }
        self.version = version
        var builder = try ModelBuilder(types: types)
        try builder.resolveInverses()
        let built = try builder.entities()
        self.entities = built
        self.entitiesByName = Dictionary(uniqueKeysWithValues: built.map { ($0.name, $0) })
        self.entitiesByType = Dictionary(uniqueKeysWithValues: built.map { (ObjectIdentifier($0.objectType), $0) })
        var byCode = [EntityDescription?](repeating: nil, count: Int(built.map(\.code).max() ?? 0) + 1)
        for entity in built { byCode[Int(entity.code)] = entity }
        self.entitiesByCode = byCode
        self.prototypes = builder.registry
        self.schema = ModelSchema(entities: built)
        self.versionHash = schema.versionHash
        builder.registry.attach(self)
    }

    /// The entity with this name.
    public func entity(named name: String) -> EntityDescription? { entitiesByName[name] }

    /// The entity of an object ID, without a look-up by name.
    func entity(of id: ObjectID) -> EntityDescription? {
        let code = Int(id.entityCode)
        return code < entitiesByCode.count ? entitiesByCode[code] : nil
    }

    /// The stored property a key path names (`\Client.name`), for tools that work from the
    /// model's declarations (a form reading an attribute's length limit, say); nil for a
    /// computed property or a key path that goes through a relationship.
    public func property(for keyPath: AnyKeyPath) -> PropertyDescription? {
        guard let rootType = type(of: keyPath).rootType as? ManagedObject.Type, let entity = entity(for: rootType),
              let path = propertyPath(for: keyPath, in: entity), path.count == 1, path[0].entityName == entity.name,
              readsStoredProperty(keyPath, path: path, from: entity) else { return nil }
        return entity.properties[path[0].index]
    }

    /// The entity declared by this class.
    public func entity(for type: ManagedObject.Type) -> EntityDescription? {
        entitiesByType[ObjectIdentifier(type)]
    }

    /// The property path a key path names, starting at `entity`; nil when it names anything
    /// but `@Attribute`/`@Relationship` properties (a computed property, say).
    func propertyPath(for keyPath: AnyKeyPath, in entity: EntityDescription) -> [PropertyStep]? {
        if let cached = entity.cachedPath(for: keyPath) { return cached }
        guard let path = prototypes.record(keyPath, on: entity.name), !path.isEmpty else { return nil }
        entity.cachePath(path, for: keyPath)
        return path
    }

    /// Whether `keyPath` reads an object's `objectID` (which predicates compare to a
    /// captured ID, as the row's primary key).
    func isObjectIDKeyPath(_ keyPath: AnyKeyPath, in entity: EntityDescription) -> Bool {
        prototypes.readsObjectID(keyPath, on: entity.name)
    }
}

/// Marks the property wrappers, so the model can find them among a class's stored properties.
protocol PropertyWrapperMarker {}
extension Attribute: PropertyWrapperMarker {}
extension Relationship: PropertyWrapperMarker {}

/// The prototypes of a model's entities, used to learn which property a key path reads.
///
/// @unchecked Sendable: prototypes are managed objects (not Sendable); they are only touched
/// while `lock` is held, and never handed out.
final class PrototypeRegistry: @unchecked Sendable {
    private let lock = Locked()
    private let prototypes: [String: ManagedObject]

    init(prototypes: [String: ManagedObject]) {
        self.prototypes = prototypes
    }

    // Set once the model is built: lets a prototype's to-one relationships return the
    // destination's prototype, so chained key paths (`\Invoice.client?.name`) can be followed.
    // Written once in the model's init, before the model is shared; read under `lock`.
    private var entitiesByPrototype: [ObjectIdentifier: EntityDescription] = [:]

    func attach(_ model: ManagedObjectModel) {
        lock.withLock {
            for (name, proto) in prototypes {
                entitiesByPrototype[ObjectIdentifier(proto)] = model.entitiesByName[name]
            }
        }
    }

    /// The destination prototype of a prototype's to-one relationship (called under `lock`,
    /// while a key path is being recorded).
    func destinationPrototype(of prototype: ManagedObject, at index: Int) -> ManagedObject? {
        guard let entity = entitiesByPrototype[ObjectIdentifier(prototype)],
              let rel = entity.relationshipDescription(at: index), !rel.isToMany else { return nil }
        return prototypes[rel.destinationEntityName]
    }

    /// Applies `keyPath` to the prototype of `entityName` and returns the properties it read.
    func record(_ keyPath: AnyKeyPath, on entityName: String) -> [PropertyStep]? {
        lock.withLock {
            guard let proto = prototypes[entityName] else { return nil }
            let state = ThreadState.current
            let saved = (state.recordedPath, state.recordingRegistry)
            state.recordedPath = []
            state.recordingRegistry = self
            defer { (state.recordedPath, state.recordingRegistry) = saved }
            guard Self.apply(keyPath, to: proto) else { return nil }
            return state.recordedPath?.compactMap { step in
                guard let name = prototypes.first(where: { ObjectIdentifier($0.value) == step.entity })?.key
                else { return nil }
                return PropertyStep(entityName: name, index: step.index)
            }
        }
    }

    /// Applies `keyPath` to the prototype of `entityName` while reads of `step` return
    /// `value`, and returns what the key path returned, as a stored value (nil when it is not
    /// an attribute value): a stored attribute gives the value back, a computed property
    /// something else.
    func result(of keyPath: AnyKeyPath, on entityName: String, reading value: StoredValue,
                at step: PropertyStep) -> StoredValue? {
        lock.withLock {
            guard let proto = prototypes[entityName], let probed = prototypes[step.entityName] else { return nil }
            let state = ThreadState.current
            let saved = (state.probe, state.recordingRegistry)
            state.probe = (ObjectIdentifier(probed), step.index, value)
            state.recordingRegistry = self
            defer { (state.probe, state.recordingRegistry) = saved }
            func open<Root>(_: Root.Type) -> StoredValue? {
                guard let typed = keyPath as? PartialKeyPath<Root>, let root = proto as? Root else { return nil }
                return (root[keyPath: typed] as? any AttributeValue)?.storedValueBox.value
            }
            return _openExistential(type(of: keyPath).rootType, do: open)
        }
    }

    /// Applies `keyPath` to the prototype and tells whether it returned the prototype's ID.
    func readsObjectID(_ keyPath: AnyKeyPath, on entityName: String) -> Bool {
        lock.withLock {
            guard let proto = prototypes[entityName] else { return false }
            func open<Root>(_: Root.Type) -> Bool {
                guard let typed = keyPath as? PartialKeyPath<Root>, let root = proto as? Root else { return false }
                return (root[keyPath: typed] as? ObjectID) == proto.objectID
            }
            return _openExistential(type(of: keyPath).rootType, do: open)
        }
    }

    private static func apply(_ keyPath: AnyKeyPath, to object: ManagedObject) -> Bool {
        // Open the key path's root type (a metatype existential opens to its dynamic type).
        func open<Root>(_: Root.Type) -> Bool {
            guard let typed = keyPath as? PartialKeyPath<Root>, let root = object as? Root else { return false }
            _ = root[keyPath: typed]
            return true
        }
        return _openExistential(type(of: keyPath).rootType, do: open)
    }
}

extension Array {
    subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
