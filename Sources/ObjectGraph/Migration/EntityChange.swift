import Foundation

/// How one column of an entity's table gets its values in a stage.
struct ColumnPlan: Sendable {
    /// The column's name in the new version.
    let name: String
    /// The attribute's type in the new version; nil for a to-one relationship's column.
    let type: AttributeType?
    /// The old version's column it is copied from; nil for a new column.
    let source: String?
    /// The old type, when the values are converted (exactly, or the stage fails).
    let convertedFrom: AttributeType?
    /// What nils become: the new model's declared default, for attributes that are new and
    /// required, or that became required.
    let fill: StoredValue?

    var sqlType: String { type?.sqlType ?? "INTEGER" }
    var isRenamed: Bool { source != nil && source != name }
}

/// What a stage does to an entity that is in both versions.
struct EntityChange: Sendable {
    let oldName: String
    let newName: String
    /// Every column of the new version's table, in order.
    var columns: [ColumnPlan] = []
    /// Columns of the old table that are gone.
    var removedColumns: [String] = []
    /// Old property name → new, for history and error messages.
    var propertyRenames: [String: String] = [:]
    /// Old names of the properties that are gone.
    var removedProperties: [String] = []
    /// String attributes whose stored values must be checked against a lower length limit.
    var lengthChecks: [(attribute: String, maximum: Int)] = []
    /// To-one relationships that are new and required: a custom stage must fill them.
    var requiredToOne: [String] = []

    var isRenamed: Bool { oldName != newName }
    var conversions: [ColumnPlan] { columns.filter { $0.convertedFrom != nil } }
    /// Whether a lightweight stage copies the table: for columns removed, renamed or converted.
    var needsRebuild: Bool {
        !removedColumns.isEmpty || columns.contains { $0.isRenamed || $0.convertedFrom != nil }
    }

    init(oldName: String, newName: String) {
        self.oldName = oldName
        self.newName = newName
    }

    /// Fills in the columns and returns what the stage cannot do for this entity.
    mutating func compare(old: EntityDescription, new: EntityDescription, names: RenameMap, isCustom: Bool) -> [String] {
        var unsupported: [String] = []
        var kept = Set<String>()
        for property in new.properties {
            let oldPropertyName = names.oldPropertyName(of: property.name, entity: old)
            let oldIndex = oldPropertyName.flatMap { old.propertyIndexByName[$0] }
            if let oldPropertyName { kept.insert(oldPropertyName) }
            if let oldPropertyName, oldPropertyName != property.name {
                propertyRenames[oldPropertyName] = property.name
            }
            let oldProperty = oldIndex.map { old.properties[$0] }
            switch property {
            case .attribute(let attribute):
                unsupported += plan(attribute, old: oldProperty, isCustom: isCustom)
            case .relationship(let relationship):
                unsupported += plan(relationship, old: oldProperty, names: names, isCustom: isCustom)
            }
        }
        for property in old.properties where !kept.contains(property.name) {
            removedProperties.append(property.name)
            switch property {
            case .attribute: removedColumns.append(property.name)
            case .relationship(let r) where !r.isToMany: removedColumns.append(property.name)
            case .relationship: break
            }
        }
        return unsupported
    }

    private mutating func plan(_ attribute: AttributeDescription, old: PropertyDescription?, isCustom: Bool) -> [String] {
        let fill = attribute.isOptional ? nil : attribute.defaultValue
        guard let old else {
            columns.append(ColumnPlan(name: attribute.name, type: attribute.type, source: nil, convertedFrom: nil, fill: fill))
            return []
        }
        let label = "\(newName).\(attribute.name)"
        guard case .attribute(let previous) = old else {
            return ["\(label) changed from a relationship to an attribute: add the attribute under another name instead"]
        }
        var unsupported: [String] = []
        var convertedFrom: AttributeType?
        if previous.type != attribute.type {
            if isCustom {
                unsupported.append("attribute \(label) changes type from \(previous.type.rawValue) to \(attribute.type.rawValue): a custom stage does not change types; do it in a lightweight stage before or after it")
            } else if !ValueConversion.converts(previous.type, to: attribute.type) {
                unsupported.append("attribute \(label) changes type from \(previous.type.rawValue) to \(attribute.type.rawValue), which no lightweight stage converts (only between int, int64, double and decimal, exactly): add a new attribute, fill it in a custom stage, and remove the old one in the next stage")
            }
            convertedFrom = previous.type
        }
        let newLimit = Self.maximumLength(attribute), oldLimit = Self.maximumLength(previous)
        if attribute.type == .string, let newLimit, oldLimit.map({ $0 > newLimit }) ?? true {
            lengthChecks.append((attribute.name, newLimit))
        }
        columns.append(ColumnPlan(name: attribute.name, type: attribute.type, source: previous.name,
                                  convertedFrom: convertedFrom, fill: previous.isOptional ? fill : nil))
        return unsupported
    }

    private mutating func plan(_ relationship: RelationshipDescription, old: PropertyDescription?, names: RenameMap,
                               isCustom: Bool) -> [String] {
        let label = "\(newName).\(relationship.name)"
        guard let old else {
            if !relationship.isToMany {
                columns.append(ColumnPlan(name: relationship.name, type: nil, source: nil, convertedFrom: nil, fill: nil))
                if relationship.isRequired {
                    if !isCustom {
                        return ["relationship \(label) is new and required, so existing \(newName) objects would have none: make it optional, or set it in a custom stage"]
                    }
                    requiredToOne.append(relationship.name)
                }
            }
            return []
        }
        guard case .relationship(let previous) = old else {
            return ["\(label) changed from an attribute to a relationship: add the relationship under another name instead"]
        }
        var differences: [String] = []
        if previous.cardinality != relationship.cardinality {
            differences.append("from \(ModelSchema.describe(previous.cardinality)) to \(ModelSchema.describe(relationship.cardinality))")
        }
        if names.newEntityName(of: previous.destinationEntityName) != relationship.destinationEntityName {
            differences.append("destination from \(previous.destinationEntityName) to \(relationship.destinationEntityName)")
        }
        if names.newPropertyName(of: previous.inverseName, entity: previous.destinationEntityName) != relationship.inverseName {
            differences.append("inverse from \(previous.inverseName) to \(relationship.inverseName)")
        }
        if !relationship.isToMany {
            columns.append(ColumnPlan(name: relationship.name, type: nil, source: previous.name, convertedFrom: nil, fill: nil))
        }
        guard !differences.isEmpty else { return [] }
        return ["relationship \(label) changes \(differences.joined(separator: ", ")): add a new relationship, fill it in a custom stage, and remove the old one in the next stage"]
    }

    private static func maximumLength(_ attribute: AttributeDescription) -> Int? {
        attribute.constraints.compactMap { if case .maxLength(let n) = $0 { return n } else { return nil } }.min()
    }
}
