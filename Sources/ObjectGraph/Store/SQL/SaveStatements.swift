import Foundation

/// The statements a save writes, as fragments every store runs on its own connection: the
/// same SQL for SQLite and PostgreSQL, with the differences asked of the dialect.
extension EntityTable {
    /// `INSERT INTO "Client" (_pk, _version, …) VALUES (?, 1, …)`.
    package func insert(primaryKey: Int64, values: [StoredValue]) -> SQLFragment {
        SQLFragment(insertSQL, [.int(primaryKey)] + columns.map { values[$0.index] })
    }

    /// `UPDATE "Client" SET _version = _version + 1, "name" = ? … WHERE _pk = ? AND _version = ?`:
    /// every column, or only those at `positions` (in `columns`).
    package func update(primaryKey: Int64, values: [StoredValue], expected: Int64, positions: [Int]?) -> SQLFragment {
        let written = positions ?? Array(columns.indices)
        var binds = written.map { values[columns[$0].index] }
        binds.append(.int(primaryKey))
        binds.append(.int(expected))
        return SQLFragment(positions == nil ? updateSQL : updateSQL(only: written), binds)
    }

    /// The positions (in `columns`) of the properties at `indices` (ascending, as `columns`
    /// are: one pass over both, no set built per saved object).
    package func positions(of indices: [Int]) -> [Int] {
        var positions: [Int] = []
        positions.reserveCapacity(min(indices.count, columns.count))
        var next = indices.startIndex
        for (position, column) in columns.enumerated() {
            while next < indices.endIndex && indices[next] < column.index { next += 1 }
            if next == indices.endIndex { break }
            if indices[next] == column.index { positions.append(position) }
        }
        return positions
    }

    /// `DELETE FROM "Client" WHERE _pk = ? [AND _version = ?]`.
    package func delete(primaryKey: Int64, expected: Int64?) -> SQLFragment {
        guard let expected else { return "DELETE FROM \(raw: table) WHERE _pk = \(.int(primaryKey))" }
        return SQLFragment(deleteSQL, [.int(primaryKey), .int(expected)])
    }

    /// `SELECT <selectList> FROM "Client" t0 WHERE t0._pk = ?`.
    package func select(primaryKey: Int64) -> SQLFragment {
        SQLFragment(selectByKeySQL, [.int(primaryKey)])
    }
}

extension EntityTable {
    /// The query for the destinations (rows of this table) of an owner's to-many
    /// relationship, its one parameter the owner's key: in the relationship's order when it
    /// is ordered, else by key. Nil for a to-one relationship.
    package func destinationsSQL(of relationship: RelationshipDescription, in owner: EntityDescription,
                                 model: ManagedObjectModel) -> String? {
        if relationship.cardinality == .orderedToMany {
            let order = SQLSchema.orderTableName(entity: owner.name, relationship: relationship.name)
            return "SELECT \(selectList) FROM \(order) o JOIN \(table) t0 ON t0._pk = o.member WHERE o.owner = ? ORDER BY o.position"
        }
        switch SQLSchema.mapping(of: relationship, in: owner, model: model) {
        case .inverseForeignKey(_, let column):
            return "SELECT \(selectList) FROM \(table) t0 WHERE t0.\(column) = ? ORDER BY t0._pk"
        case .joinTable(let join, let ownerColumn, let member):
            return "SELECT \(selectList) FROM \(join) j JOIN \(table) t0 ON t0._pk = j.\(member) WHERE j.\(ownerColumn) = ? ORDER BY t0._pk"
        case .foreignKey:
            return nil
        }
    }
}

extension SQLSchema {
    /// `"a" = ? AND "b" = ?` for the properties of a uniqueness constraint (`group`, property
    /// indices) with their values; nil when a value is nil (a nil never clashes).
    package static func keyCondition(_ group: [Int], values: [StoredValue], entity: EntityDescription,
                                     alias: String = "") -> SQLFragment? {
        var parts: [SQLFragment] = []
        for index in group {
            guard index < values.count, !values[index].isNull else { return nil }
            parts.append("\(raw: alias)\(raw: quote(entity.properties[index].name)) = \(values[index])")
        }
        return parts.joined(separator: " AND ")
    }

    /// The statements that write an object's many-to-many links and ordered positions, for
    /// the to-many values that differ from `base` (every one when `base` is nil).
    package static func toManyWrites(_ entity: EntityDescription, model: ManagedObjectModel, ownerKey: Int64,
                                     values: [StoredValue], base: [StoredValue]?, dialect: SQLDialect) -> [SQLFragment] {
        var statements: [SQLFragment] = []
        for index in entity.relationshipIndices {
            guard let rel = entity.relationshipDescription(at: index), rel.isToMany,
                  case .references(let ids) = values[index] else { continue }
            let old: [ObjectID]? = base.flatMap { b in
                if index < b.count, case .references(let o) = b[index] { return o } else { return nil }
            }
            if let old, old == ids { continue }
            let keys = ids.compactMap(\.primaryKey)
            if rel.cardinality == .orderedToMany {
                let order = orderTableName(entity: entity.name, relationship: rel.name)
                statements.append("DELETE FROM \(raw: order) WHERE owner = \(.int(ownerKey))")
                for (position, key) in keys.enumerated() {
                    statements.append("""
                        INSERT INTO \(raw: order) (owner, member, position)
                        VALUES (\(.int(ownerKey)), \(.int(key)), \(.int(Int64(position))))
                        """)
                }
            }
            if case .joinTable(let join, let owner, let member) = mapping(of: rel, in: entity, model: model), owner == "\"a\"" {
                // Only the side owning column `a` writes, so a link is written once.
                let oldKeys = Set((old ?? []).compactMap(\.primaryKey))
                let newKeys = Set(keys)
                for key in oldKeys.subtracting(newKeys) {
                    statements.append("DELETE FROM \(raw: join) WHERE \(raw: owner) = \(.int(ownerKey)) AND \(raw: member) = \(.int(key))")
                }
                for key in newKeys.subtracting(oldKeys) {
                    statements.append(dialect.insertIgnoringDuplicates(
                        into: join, "(\(raw: owner), \(raw: member)) VALUES (\(.int(ownerKey)), \(.int(key)))"))
                }
            }
        }
        return statements
    }

    /// The statements that remove a deleted object's links and positions.
    package static func linkDeletions(_ entity: EntityDescription, model: ManagedObjectModel, key: Int64) -> [SQLFragment] {
        var statements: [SQLFragment] = []
        for rel in entity.relationships where rel.isToMany {
            if case .joinTable(let join, let owner, _) = mapping(of: rel, in: entity, model: model) {
                statements.append("DELETE FROM \(raw: join) WHERE \(raw: owner) = \(.int(key))")
            }
            if rel.cardinality == .orderedToMany {
                statements.append("DELETE FROM \(raw: orderTableName(entity: entity.name, relationship: rel.name)) WHERE owner = \(.int(key))")
            }
        }
        return statements
    }
}
