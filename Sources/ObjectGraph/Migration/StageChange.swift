import Foundation

/// What one stage does to the file's tables, worked out once, when the plan is made, from
/// the stage's two models and its renames. Anything the stage cannot carry out is collected
/// in `unsupported`, each with what to do instead.
struct StageChange: Sendable {
    var entities: [EntityChange] = []
    /// New entities (their tables are created).
    var addedEntities: [String] = []
    /// Entities of the old version that are gone (their tables are dropped).
    var removedEntities: [String] = []
    var relationshipTables = RelationshipTableChange()
    var unsupported: [String] = []

    /// Old entity name → new, for the entities that were renamed.
    var entityRenames: [String: String] {
        Dictionary(uniqueKeysWithValues: entities.filter(\.isRenamed).map { ($0.oldName, $0.newName) })
    }

    init(from old: ManagedObjectModel, to new: ManagedObjectModel, renames: [MigrationRename],
         isCustom: Bool, stage: String) throws {
        let names = try RenameMap(renames, old: old, new: new, stage: stage)
        var matchedOld = Set<String>()
        for entity in new.entities {
            guard let oldName = names.oldEntityName(of: entity.name, in: old), let oldEntity = old.entity(named: oldName) else {
                addedEntities.append(entity.name)
                continue
            }
            matchedOld.insert(oldName)
            var change = EntityChange(oldName: oldName, newName: entity.name)
            unsupported += change.compare(old: oldEntity, new: entity, names: names, isCustom: isCustom)
            entities.append(change)
        }
        removedEntities = old.entities.map(\.name).filter { !matchedOld.contains($0) }
        relationshipTables = RelationshipTableChange(old: old, new: new, names: names)
    }
}

/// A stage's renames, resolved to names and checked against both versions.
struct RenameMap {
    private(set) var entities: [String: String] = [:]
    /// Old entity name → (old property name → new property name).
    private(set) var properties: [String: [String: String]] = [:]

    init(_ renames: [MigrationRename], old: ManagedObjectModel, new: ManagedObjectModel, stage: String) throws {
        for rename in renames {
            if case .entity(let from, let to) = rename.kind {
                guard old.entity(named: from) != nil else {
                    throw MigrationPlanError.invalidRename(stage: stage, rename: rename.description,
                                                           reason: "version \(old.version) has no entity \(from)")
                }
                guard new.entity(named: to) != nil else {
                    throw MigrationPlanError.invalidRename(stage: stage, rename: rename.description,
                                                           reason: "version \(new.version) has no entity \(to)")
                }
                guard !entities.values.contains(to) else {
                    throw MigrationPlanError.invalidRename(stage: stage, rename: rename.description,
                                                           reason: "another entity is renamed \(to) too")
                }
                entities[from] = to
            }
        }
        for rename in renames {
            guard case .property(let from, let to) = rename.kind else { continue }
            let (oldEntity, oldProperty) = try Self.resolve(from, in: old, stage: stage, rename: rename)
            let (newEntity, newProperty) = try Self.resolve(to, in: new, stage: stage, rename: rename)
            guard (entities[oldEntity] ?? oldEntity) == newEntity else {
                throw MigrationPlanError.invalidRename(
                    stage: stage, rename: rename.description,
                    reason: "\(oldEntity).\(oldProperty) becomes a property of \(entities[oldEntity] ?? oldEntity), not of \(newEntity)")
            }
            guard properties[oldEntity]?.values.contains(newProperty) != true else {
                throw MigrationPlanError.invalidRename(stage: stage, rename: rename.description,
                                                       reason: "another property of \(oldEntity) is renamed \(newProperty) too")
            }
            properties[oldEntity, default: [:]][oldProperty] = newProperty
        }
    }

    private static func resolve(_ keyPath: AnyKeyPath, in model: ManagedObjectModel, stage: String,
                                rename: MigrationRename) throws -> (String, String) {
        guard let type = Swift.type(of: keyPath).rootType as? ManagedObject.Type, let entity = model.entity(for: type),
              let property = model.property(for: keyPath) else {
            throw MigrationPlanError.invalidRename(
                stage: stage, rename: rename.description,
                reason: "\(keyPath) is not a stored property of an entity of version \(model.version)")
        }
        return (entity.name, property.name)
    }

    /// The old name of the new version's entity `name`; nil for an added entity.
    func oldEntityName(of name: String, in old: ManagedObjectModel) -> String? {
        if let renamed = entities.first(where: { $0.value == name })?.key { return renamed }
        return old.entity(named: name) != nil && entities[name] == nil ? name : nil
    }

    func newEntityName(of oldName: String) -> String { entities[oldName] ?? oldName }

    /// The old name of property `name` of the new entity whose old name is `oldEntity`.
    func oldPropertyName(of name: String, entity oldEntity: EntityDescription) -> String? {
        let renamed = properties[oldEntity.name] ?? [:]
        if let from = renamed.first(where: { $0.value == name })?.key { return from }
        return oldEntity.propertyIndexByName[name] != nil && renamed[name] == nil ? name : nil
    }

    func newPropertyName(of name: String, entity oldEntity: String) -> String { properties[oldEntity]?[name] ?? name }
}
