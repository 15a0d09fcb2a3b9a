import Foundation

/// What a stage does to the tables of to-many relationships: the join tables of many-to-many
/// relationships (named after both sides, column `a` for the side whose name sorts first)
/// and the order tables of ordered ones (named after their entity and relationship). A
/// rename of either side renames the table, and may swap its columns.
struct RelationshipTableChange: Sendable {
    /// A table that keeps its rows under another name.
    struct Move: Sendable, Equatable {
        let old: String
        let new: String
        /// The join table's `a` and `b` columns trade places (the sides sort the other way).
        let swapsColumns: Bool
    }
    enum Kind: Sendable, Equatable { case join, order }

    var moves: [Move] = []
    /// Tables of relationships the new version adds (raw names).
    var added: [(name: String, kind: Kind)] = []
    /// Tables of relationships the new version removes (raw names).
    var removed: [String] = []

    init() {}

    init(old: ManagedObjectModel, new: ManagedObjectModel, names: RenameMap) {
        let oldTables = Self.tables(of: old), newTables = Self.tables(of: new)
        var matched = Set<String>()
        for (name, table) in newTables.sorted(by: { $0.key < $1.key }) {
            // The old table holding the same relationship, found from its first side.
            let oldSide = Self.oldSide(of: table.first, old: old, names: names)
            guard let (oldName, oldTable) = oldTables.first(where: {
                $0.value.kind == table.kind && ($0.value.first == oldSide || $0.value.second == oldSide)
            }) else {
                added.append((name, table.kind))
                continue
            }
            matched.insert(oldName)
            let swaps = table.kind == .join && oldTable.first != oldSide
            if oldName != name || swaps { moves.append(Move(old: oldName, new: name, swapsColumns: swaps)) }
        }
        removed = oldTables.keys.filter { !matched.contains($0) }.sorted()
    }

    /// A relationship table: its kind and the `Entity.relationship` sides it serves (`first`
    /// is column `a`'s side of a join table; an order table has one side).
    private struct Table {
        let kind: Kind
        let first: String
        let second: String?
    }

    private static func tables(of model: ManagedObjectModel) -> [String: Table] {
        var tables: [String: Table] = [:]
        for entity in model.entities {
            for relationship in entity.relationships where relationship.isToMany {
                let this = "\(entity.name).\(relationship.name)"
                if relationship.cardinality == .orderedToMany {
                    tables[SQLSchema.orderTableRawName(entity: entity.name, relationship: relationship.name)] =
                        Table(kind: .order, first: this, second: nil)
                }
                let inverse = model.entity(named: relationship.destinationEntityName)?.relationship(named: relationship.inverseName)
                guard inverse?.isToMany == true else { continue }
                let other = "\(relationship.destinationEntityName).\(relationship.inverseName)"
                let (first, second) = (min(this, other), max(this, other))
                tables[SQLSchema.joinTableRawName(first: first, second: second)] = Table(kind: .join, first: first, second: second)
            }
        }
        return tables
    }

    /// `Entity.relationship` of the new version, as the old version named it.
    private static func oldSide(of side: String, old: ManagedObjectModel, names: RenameMap) -> String? {
        guard let dot = side.firstIndex(of: ".") else { return nil }
        let entity = String(side[..<dot]), relationship = String(side[side.index(after: dot)...])
        guard let oldEntityName = names.oldEntityName(of: entity, in: old), let oldEntity = old.entity(named: oldEntityName),
              let oldRelationship = names.oldPropertyName(of: relationship, entity: oldEntity) else { return nil }
        return "\(oldEntityName).\(oldRelationship)"
    }
}
