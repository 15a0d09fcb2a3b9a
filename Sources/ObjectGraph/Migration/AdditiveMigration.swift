import Foundation

/// A migration for a store that changes its tables only by adding to them (PostgreSQL): the
/// steps, in no SQL dialect, that take a store from what ``SchemaDecision`` found to the
/// app's model. Nothing here decides anew: the additions are the decision's, and each stage's
/// changes are its ``StageChange``, worked out when the plan was made, as for SQLite.
///
/// What a store can do by adding: new entities, attributes and relationships (new required
/// attributes take their declared default), attributes made optional, or required (nils take
/// the default), changed uniqueness constraints (their indexes made again), and length limits
/// (stored values checked). A stage that also renames, removes or converts anything, or runs
/// code (a custom stage), is refused before anything is written, with ``MigrationError/changesNotAdditive(location:stage:changes:)``
/// naming each such change.
package struct AdditiveMigration: Sendable {
    /// One change to the store's tables.
    package enum Step: Sendable {
        /// A new entity: its table, its indexes and its to-many relationships' tables, as
        /// `model` (the version that adds it) declares them.
        case createEntity(EntityDescription, model: ManagedObjectModel)
        /// A new column of an existing table; `type` nil for a to-one relationship's key.
        case addColumn(EntityDescription, name: String, type: AttributeType?)
        /// The column's nils become `value`: the declared default of an attribute that is new
        /// and required, or became required.
        case fillNulls(EntityDescription, column: String, value: StoredValue)
        /// A new to-many relationship's table (its raw name): a join table, or an order table.
        case createRelationshipTable(name: String, isJoinTable: Bool)
        /// The entity's uniqueness constraints changed in `stage`: its `droppedCount` old unique
        /// indexes go, and its new ones are made (a duplicate fails the stage).
        case replaceUniqueIndexes(EntityDescription, droppedCount: Int, stage: String)
        /// A string attribute got a (lower) length limit in `stage`: every stored value must
        /// fit, counted in Swift characters, or the stage fails naming the first that does not.
        case checkLength(EntityDescription, attribute: String, maximum: Int, stage: String)
    }

    /// The steps, in order.
    package private(set) var steps: [Step] = []
    /// The version the store was at; nil when it only gained additions at its own version.
    package let fromVersion: Int?
    /// The stages that run, by name.
    package private(set) var stages: [String] = []

    /// - Throws: ``MigrationError/changesNotAdditive(location:stage:changes:)`` for the first
    ///   stage that does more than add.
    package init(_ decision: SchemaDecision, model: ManagedObjectModel, plan: MigrationPlan?, location: String) throws {
        switch decision {
        case .upToDate:
            fromVersion = nil
        case .extend(let additions):
            fromVersion = nil
            add(additions, model: model)
        case .migrateVersions(let version, let additions):
            fromVersion = version
            guard let plan, let first = plan.model(version: version) else {
                throw MigrationError.noMigrationPlan(path: location, fileVersion: version, appVersion: model.version)
            }
            add(additions, model: first)
            for step in plan.steps(from: version) {
                let refused = Self.changesNotAdditive(step.stage, step.change)
                guard refused.isEmpty else {
                    throw MigrationError.changesNotAdditive(location: location, stage: step.stage.name, changes: refused)
                }
                add(step.change, from: step.from, to: step.to, stage: step.stage.name)
                stages.append(step.stage.name)
            }
        }
    }

    private mutating func add(_ additions: [SchemaAddition], model: ManagedObjectModel) {
        for addition in additions {
            switch addition {
            case .entity(let name):
                if let entity = model.entity(named: name) { steps.append(.createEntity(entity, model: model)) }
            case .attribute(let entityName, let name):
                guard let entity = model.entity(named: entityName), let attribute = entity.attribute(named: name) else { continue }
                steps.append(.addColumn(entity, name: name, type: attribute.type))
            }
        }
    }

    private mutating func add(_ change: StageChange, from: ManagedObjectModel, to: ManagedObjectModel, stage: String) {
        for name in change.addedEntities {
            if let entity = to.entity(named: name) { steps.append(.createEntity(entity, model: to)) }
        }
        for entityChange in change.entities {
            guard let entity = to.entity(named: entityChange.newName) else { continue }
            for column in entityChange.columns where column.source == nil {
                steps.append(.addColumn(entity, name: column.name, type: column.type))
            }
            for column in entityChange.columns {
                if let fill = column.fill { steps.append(.fillNulls(entity, column: column.name, value: fill)) }
            }
            for check in entityChange.lengthChecks {
                steps.append(.checkLength(entity, attribute: check.attribute, maximum: check.maximum, stage: stage))
            }
            let before = from.entity(named: entityChange.oldName)?.uniquenessConstraints ?? []
            if before != entity.uniquenessConstraints {
                steps.append(.replaceUniqueIndexes(entity, droppedCount: before.count, stage: stage))
            }
        }
        for (name, kind) in change.relationshipTables.added {
            steps.append(.createRelationshipTable(name: name, isJoinTable: kind == .join))
        }
    }

    /// What `stage` does besides adding, in words; empty when it only adds.
    private static func changesNotAdditive(_ stage: MigrationStage, _ change: StageChange) -> [String] {
        var changes: [String] = []
        if stage.isCustom { changes.append("it is a custom stage, whose code reads and writes through SQLite") }
        for entity in change.entities {
            if entity.isRenamed { changes.append("entity \(entity.oldName) is renamed \(entity.newName)") }
            for (old, new) in entity.propertyRenames.sorted(by: { $0.key < $1.key }) {
                changes.append("property \(entity.oldName).\(old) is renamed \(new)")
            }
            for name in entity.removedProperties { changes.append("property \(entity.oldName).\(name) is removed") }
            for column in entity.conversions {
                changes.append("attribute \(entity.newName).\(column.name) changes type from \(column.convertedFrom?.rawValue ?? "?") to \(column.type?.rawValue ?? "?")")
            }
        }
        for name in change.removedEntities { changes.append("entity \(name) is removed") }
        if changes.isEmpty && !(change.relationshipTables.moves.isEmpty && change.relationshipTables.removed.isEmpty) {
            changes.append("the tables of to-many relationships are renamed or removed")
        }
        return changes
    }
}
