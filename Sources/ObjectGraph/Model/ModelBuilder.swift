/// Builds a model's entities from their classes, in three steps: read each class's
/// declarations from a prototype, pair each relationship with its inverse, then make the
/// entity descriptions with their uniqueness constraints.
struct ModelBuilder {
    /// A class and the properties it declares, in declaration order.
    private struct Declared {
        let type: ManagedObject.Type
        let name: String
        let propertyNames: [String]
        let declarations: [PropertyDeclaration]
    }

    /// A relationship whose inverse is named by a key path on its destination.
    private struct PendingInverse {
        let entity: String
        let index: Int
        let keyPath: AnyKeyPath
        let destination: String
    }

    let registry: PrototypeRegistry
    private let declared: [Declared]
    /// The properties of each entity; relationships' inverses are filled in by `resolveInverses`.
    private var properties: [String: [PropertyDescription]] = [:]
    private var pendingInverses: [PendingInverse] = []

    /// Reads the declarations of `types`.
    /// - Throws: ``ModelError`` for a class listed twice, not a direct subclass of
    ///   `ManagedObject`, or with a relationship to a class not listed.
    init(types: [ManagedObject.Type]) throws {
        var seen = Set<String>()
        var declared: [Declared] = []
        var prototypes: [String: ManagedObject] = [:]
        for type in types {
            let name = String(describing: type)
            guard seen.insert(name).inserted else { throw ModelError.duplicateEntity(name) }
            let (prototype, declarations) = Self.makePrototype(of: type)
            declared.append(Declared(type: type, name: name, propertyNames: try Self.propertyNames(of: prototype, entity: name,
                                                                                                   expected: declarations.count),
                                     declarations: declarations))
            prototypes[name] = prototype
        }
        self.declared = declared
        registry = PrototypeRegistry(prototypes: prototypes)
        let typeNames = Dictionary(uniqueKeysWithValues: declared.map { (ObjectIdentifier($0.type), $0.name) })
        for entity in declared {
            properties[entity.name] = try describe(entity, typeNames: typeNames)
        }
    }

    /// The names of the wrapped properties of a prototype, in declaration order.
    private static func propertyNames(of prototype: ManagedObject, entity name: String, expected: Int) throws -> [String] {
        let mirror = Mirror(reflecting: prototype)
        if let superMirror = mirror.superclassMirror, superMirror.subjectType != ManagedObject.self {
            throw ModelError.unsupportedDeclaration(
                entity: name, reason: "it must subclass ManagedObject directly, not \(superMirror.subjectType)")
        }
        let names = mirror.children.compactMap { child -> String? in
            guard child.value is any PropertyWrapperMarker, let label = child.label else { return nil }
            return label.hasPrefix("_") ? String(label.dropFirst()) : label
        }
        guard names.count == expected else {
            throw ModelError.unsupportedDeclaration(
                entity: name, reason: "found \(expected) property declarations but \(names.count) wrapper properties")
        }
        return names
    }

    /// The entity's properties, relationships with their inverses still unnamed.
    private mutating func describe(_ entity: Declared, typeNames: [ObjectIdentifier: String]) throws -> [PropertyDescription] {
        var described: [PropertyDescription] = []
        // The entity-wide switch covers every attribute and to-one relationship.
        let recordsAll = entity.type.recordsValuesInHistory
        for (index, (name, declaration)) in zip(entity.propertyNames, entity.declarations).enumerated() {
            switch declaration {
            case let .attribute(type, isOptional, defaultValue, constraints):
                for option in [AttributeConstraint.searchable, .indexedForSubstringSearch] where constraints.contains(option) {
                    try Self.checkIndexedText(name, type: type, entity: entity.name, option: option)
                }
                described.append(.attribute(AttributeDescription(
                    name: name, type: type, isOptional: isOptional, constraints: constraints, defaultValue: defaultValue,
                    recordsValuesInHistory: recordsAll || constraints.contains(.recordsValuesInHistory))))
            case let .relationship(destination, cardinality, inverse, deleteRule, isRequired, minCount, maxCount, recordsValues):
                guard let destinationName = typeNames[ObjectIdentifier(destination)] else {
                    throw ModelError.unknownDestination(
                        entity: entity.name, relationship: name, destination: String(describing: destination))
                }
                if recordsValues && cardinality != .toOne {
                    throw ModelError.unsupportedDeclaration(
                        entity: entity.name, reason: "\(name) is a to-many relationship, and only to-one relationships record "
                            + "values in history (the to-one side of it records them); remove recordsValuesInHistory there")
                }
                described.append(.relationship(RelationshipDescription(
                    name: name, destinationEntityName: destinationName, cardinality: cardinality,
                    inverseName: "", deleteRule: deleteRule, isRequired: isRequired, minCount: minCount, maxCount: maxCount,
                    recordsValuesInHistory: cardinality == .toOne && (recordsAll || recordsValues))))
                if let inverse {
                    pendingInverses.append(PendingInverse(entity: entity.name, index: index, keyPath: inverse,
                                                          destination: destinationName))
                }
            }
        }
        return described
    }

    /// An attribute with a text index (`.searchable`, `.indexedForSubstringSearch`: both FTS5
    /// tables on SQLite) is text, and its name is not one FTS5 keeps for itself.
    private static func checkIndexedText(_ name: String, type: AttributeType, entity: String,
                                         option: AttributeConstraint) throws {
        let (declared, what) = option == .searchable
            ? (".searchable", "full-text search indexes") : (".indexedForSubstringSearch", "substring indexes hold")
        if type != .string {
            throw ModelError.unsupportedDeclaration(
                entity: entity, reason: "\(name) is \(declared) but holds \(type.rawValue) values; \(what) String attributes only")
        }
        if ["rank", "rowid"].contains(name.lowercased()) {
            throw ModelError.unsupportedDeclaration(
                entity: entity, reason: "\(name) cannot be \(declared): FTS5 reserves the column names rank and rowid; rename the attribute")
        }
    }

    /// Pairs each relationship with the inverse its key path names, read on the destination's
    /// prototype.
    /// - Throws: ``ModelError/inconsistentInverse(entity:relationship:reason:)``.
    mutating func resolveInverses() throws {
        for pending in pendingInverses {
            guard let path = registry.record(pending.keyPath, on: pending.destination),
                  path.count == 1, path[0].entityName == pending.destination,
                  case .relationship(var inverse)? = properties[pending.destination]?[path[0].index],
                  case .relationship(var relationship)? = properties[pending.entity]?[pending.index] else {
                throw ModelError.inconsistentInverse(
                    entity: pending.entity, relationship: properties[pending.entity]?[safe: pending.index]?.name ?? "?",
                    reason: "the inverse key path does not name a @Relationship of \(pending.destination)")
            }
            guard inverse.destinationEntityName == pending.entity else {
                throw ModelError.inconsistentInverse(
                    entity: pending.entity, relationship: relationship.name,
                    reason: "\(pending.destination).\(inverse.name) points to \(inverse.destinationEntityName), not \(pending.entity)")
            }
            if !inverse.inverseName.isEmpty && inverse.inverseName != relationship.name {
                throw ModelError.inconsistentInverse(
                    entity: pending.entity, relationship: relationship.name,
                    reason: "\(pending.destination).\(inverse.name) already has the inverse \(inverse.inverseName)")
            }
            relationship.inverseName = inverse.name
            inverse.inverseName = relationship.name
            properties[pending.entity]?[pending.index] = .relationship(relationship)
            properties[pending.destination]?[path[0].index] = .relationship(inverse)
        }
    }

    /// The entity descriptions, in the order the classes were given.
    /// - Throws: ``ModelError`` for a relationship without an inverse, or a uniqueness
    ///   constraint whose key path is not an attribute of the entity.
    func entities() throws -> [EntityDescription] {
        try declared.map { entity in
            let described = properties[entity.name] ?? []
            for case .relationship(let relationship) in described where relationship.inverseName.isEmpty {
                throw ModelError.missingInverse(entity: entity.name, relationship: relationship.name)
            }
            return EntityDescription(name: entity.name, objectType: entity.type, properties: described,
                                     uniquenessIndices: try uniquenessIndices(of: entity, properties: described),
                                     indexes: try compoundIndexes(of: entity, properties: described),
                                     links: links(of: described))
        }
    }

    /// Each relationship's inverse by index (the inverses are resolved by now).
    private func links(of described: [PropertyDescription]) -> [RelationshipLink?] {
        described.map { property in
            guard case .relationship(let r) = property,
                  let inverseIndex = properties[r.destinationEntityName]?.firstIndex(where: { $0.name == r.inverseName }),
                  case .relationship(let inverse)? = properties[r.destinationEntityName]?[inverseIndex] else { return nil }
            return RelationshipLink(isToMany: r.isToMany, inverseIndex: inverseIndex, inverseIsToMany: inverse.isToMany)
        }
    }

    /// Single unique attributes, then the class's `uniquenessConstraints`, without repeats.
    private func uniquenessIndices(of entity: Declared, properties described: [PropertyDescription]) throws -> [[Int]] {
        var uniqueness: [[Int]] = []
        for (index, property) in described.enumerated() {
            if case .attribute(let attribute) = property, attribute.isUnique { uniqueness.append([index]) }
        }
        for group in entity.type.uniquenessConstraints {
            let indices = try group.map { keyPath -> Int in
                guard let path = registry.record(keyPath, on: entity.name), path.count == 1,
                      case .attribute? = described[safe: path[0].index] else {
                    throw ModelError.unresolvableKeyPath(entity: entity.name, keyPath: "\(keyPath)")
                }
                return path[0].index
            }
            if !indices.isEmpty && !uniqueness.contains(indices) { uniqueness.append(indices) }
        }
        return uniqueness
    }

    /// The class's `indexes`, without repeats: attributes and to-one relationships (the
    /// columns of the entity's table).
    private func compoundIndexes(of entity: Declared, properties described: [PropertyDescription]) throws -> [[Int]] {
        var indexes: [[Int]] = []
        for group in entity.type.indexes {
            let indices = try group.map { keyPath -> Int in
                guard let path = registry.record(keyPath, on: entity.name), path.count == 1,
                      let property = described[safe: path[0].index],
                      returnsStoredValue(keyPath, of: property, at: path[0], in: entity) else {
                    throw ModelError.unresolvableKeyPath(entity: entity.name,
                                                         keyPath: PredicateTranslationError.keyPathName(keyPath))
                }
                if case .relationship(let relationship) = property, relationship.isToMany {
                    throw ModelError.unsupportedDeclaration(
                        entity: entity.name,
                        reason: "its index on \(relationship.name) names a to-many relationship, which has no column; "
                            + "declare the index on \(relationship.destinationEntityName), over its to-one inverse")
                }
                return path[0].index
            }
            if !indices.isEmpty && !indexes.contains(indices) { indexes.append(indices) }
        }
        return indexes
    }

    /// Whether `keyPath` returns the attribute it reads as it is, rather than computing from it
    /// (`var shout: String { name.uppercased() }` reads `name` too): the key path is applied
    /// with two probe values of the attribute (see `ManagedObjectModel.readsStoredProperty`).
    private func returnsStoredValue(_ keyPath: AnyKeyPath, of property: PropertyDescription, at step: PropertyStep,
                                    in entity: Declared) -> Bool {
        guard case .attribute(let attribute) = property else { return true }
        return attribute.type.probeValues.allSatisfy { probe in
            guard let result = registry.result(of: keyPath, on: entity.name, reading: probe, at: step) else { return false }
            return result == probe || result == attribute.defaultValue
        }
    }

    /// A prototype of `type`, and the declarations its initializer recorded.
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
}
