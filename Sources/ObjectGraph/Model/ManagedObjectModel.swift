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

    let entitiesByName: [String: EntityDescription]
    let entitiesByType: [ObjectIdentifier: EntityDescription]
    let schema: ModelSchema
    let prototypes: PrototypeRegistry

    /// Builds the model from the entity classes.
    /// - Throws: ``ModelError`` when a declaration cannot be mapped (a relationship to a class
    ///   not listed, a missing or inconsistent inverse, an unresolvable key path).
    public init(entities types: [ManagedObject.Type]) throws {
        var seen = Set<String>()
        var declared: [(type: ManagedObject.Type, name: String, names: [String], decls: [PropertyDeclaration])] = []
        var prototypeObjects: [String: ManagedObject] = [:]
        for type in types {
            let name = String(describing: type)
            guard seen.insert(name).inserted else { throw ModelError.duplicateEntity(name) }
            let (prototype, decls) = Self.makePrototype(of: type)
            let mirror = Mirror(reflecting: prototype)
            if let superMirror = mirror.superclassMirror, superMirror.subjectType != ManagedObject.self {
                throw ModelError.unsupportedDeclaration(
                    entity: name, reason: "it must subclass ManagedObject directly, not \(superMirror.subjectType)")
            }
            let names = mirror.children.compactMap { child -> String? in
                guard child.value is any PropertyWrapperMarker, let label = child.label else { return nil }
                return label.hasPrefix("_") ? String(label.dropFirst()) : label
            }
            guard names.count == decls.count else {
                throw ModelError.unsupportedDeclaration(
                    entity: name, reason: "found \(decls.count) property declarations but \(names.count) wrapper properties")
            }
            declared.append((type, name, names, decls))
            prototypeObjects[name] = prototype
        }
        let typeNames = Dictionary(uniqueKeysWithValues: declared.map { (ObjectIdentifier($0.type), $0.name) })
        let registry = PrototypeRegistry(prototypes: prototypeObjects)

        // First pass: properties with inverses still unnamed.
        var properties: [String: [PropertyDescription]] = [:]
        var pendingInverses: [(entity: String, index: Int, keyPath: AnyKeyPath, destination: String)] = []
        for (type, name, names, decls) in declared {
            _ = type
            var props: [PropertyDescription] = []
            for (i, (propName, decl)) in zip(names, decls).enumerated() {
                switch decl {
                case let .attribute(type, isOptional, defaultValue, constraints):
                    props.append(.attribute(AttributeDescription(
                        name: propName, type: type, isOptional: isOptional,
                        constraints: constraints, defaultValue: defaultValue)))
                case let .relationship(destination, cardinality, inverse, deleteRule, isRequired, minCount, maxCount):
                    guard let destName = typeNames[ObjectIdentifier(destination)] else {
                        throw ModelError.unknownDestination(
                            entity: name, relationship: propName, destination: String(describing: destination))
                    }
                    props.append(.relationship(RelationshipDescription(
                        name: propName, destinationEntityName: destName, cardinality: cardinality,
                        inverseName: "", deleteRule: deleteRule, isRequired: isRequired,
                        minCount: minCount, maxCount: maxCount)))
                    if let inverse { pendingInverses.append((name, i, inverse, destName)) }
                }
            }
            properties[name] = props
        }

        // Second pass: resolve declared inverses by reading them on the destination prototype.
        for pending in pendingInverses {
            guard let path = registry.record(pending.keyPath, on: pending.destination),
                  path.count == 1, path[0].entityName == pending.destination,
                  case .relationship(var inverse)? = properties[pending.destination]?[path[0].index],
                  case .relationship(var rel)? = properties[pending.entity]?[pending.index] else {
                throw ModelError.inconsistentInverse(
                    entity: pending.entity, relationship: Self.name(of: pending, in: properties),
                    reason: "the inverse key path does not name a @Relationship of \(pending.destination)")
            }
            guard inverse.destinationEntityName == pending.entity else {
                throw ModelError.inconsistentInverse(
                    entity: pending.entity, relationship: rel.name,
                    reason: "\(pending.destination).\(inverse.name) points to \(inverse.destinationEntityName), not \(pending.entity)")
            }
            if !inverse.inverseName.isEmpty && inverse.inverseName != rel.name {
                throw ModelError.inconsistentInverse(
                    entity: pending.entity, relationship: rel.name,
                    reason: "\(pending.destination).\(inverse.name) already has the inverse \(inverse.inverseName)")
            }
            rel.inverseName = inverse.name
            inverse.inverseName = rel.name
            properties[pending.entity]?[pending.index] = .relationship(rel)
            properties[pending.destination]?[path[0].index] = .relationship(inverse)
        }

        var built: [EntityDescription] = []
        for (type, name, _, _) in declared {
            let props = properties[name] ?? []
            for case .relationship(let r) in props where r.inverseName.isEmpty {
                throw ModelError.missingInverse(entity: name, relationship: r.name)
            }
            var uniqueness: [[Int]] = []
            for (i, p) in props.enumerated() {
                if case .attribute(let a) = p, a.isUnique { uniqueness.append([i]) }
            }
            for group in type.uniquenessConstraints {
                var indices: [Int] = []
                for keyPath in group {
                    guard let path = registry.record(keyPath, on: name), path.count == 1,
                          case .attribute? = props[safe: path[0].index] else {
                        throw ModelError.unresolvableKeyPath(entity: name, keyPath: "\(keyPath)")
                    }
                    indices.append(path[0].index)
                }
                if !indices.isEmpty && !uniqueness.contains(indices) { uniqueness.append(indices) }
            }
            built.append(EntityDescription(name: name, objectType: type, properties: props,
                                           uniquenessIndices: uniqueness))
        }

        self.entities = built
        self.entitiesByName = Dictionary(uniqueKeysWithValues: built.map { ($0.name, $0) })
        self.entitiesByType = Dictionary(uniqueKeysWithValues: built.map { (ObjectIdentifier($0.objectType), $0) })
        self.prototypes = registry
        self.schema = ModelSchema(entities: built)
        self.versionHash = schema.versionHash
        registry.attach(self)
    }

    /// The entity with this name.
    public func entity(named name: String) -> EntityDescription? { entitiesByName[name] }

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

    private static func makePrototype(of type: ManagedObject.Type) -> (ManagedObject, [PropertyDeclaration]) {
        let state = ThreadState.current
        state.reset()
        state.mode = .describing
        let object = type.init(Materialization(kind: .prototype))
        // ManagedObject.init leaves the declarations of a prototype in the state for us.
        let declarations = state.declarations
        state.reset()
        return (object, declarations)
    }

    private static func name(of pending: (entity: String, index: Int, keyPath: AnyKeyPath, destination: String),
                             in properties: [String: [PropertyDescription]]) -> String {
        properties[pending.entity]?[safe: pending.index]?.name ?? "?"
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
    private let lock = Mutex(())
    private let prototypes: [String: ManagedObject]

    init(prototypes: [String: ManagedObject]) {
        self.prototypes = prototypes
    }

    // Set once the model is built: lets a prototype's to-one relationships return the
    // destination's prototype, so chained key paths (`\Invoice.client?.name`) can be followed.
    // Written once in the model's init, before the model is shared; read under `lock`.
    private var entitiesByPrototype: [ObjectIdentifier: EntityDescription] = [:]

    func attach(_ model: ManagedObjectModel) {
        lock.withLock { _ in
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
        lock.withLock { _ in
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
        lock.withLock { _ in
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
        lock.withLock { _ in
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
