import Foundation

/// The SQL a stage runs on the file's tables, inside the migration's transaction.
///
/// A lightweight stage does everything at once: an entity whose columns are removed,
/// renamed or converted is copied into a new table (SQLite's recommended way to reshape a
/// table), under a temporary name first, so that entities may even trade names; other
/// entities gain their new columns in place. A custom stage is split around its body:
/// `expand` adds tables and columns, `contract` removes what the new version dropped.
struct StageTables {
    let db: SQLiteConnection
    let change: StageChange
    let to: ManagedObjectModel
    let stage: String

    func migrateLightweight() throws {
        for entity in change.entities where entity.needsRebuild { try copy(entity, columns: entity.columns) }
        for entity in change.entities where !entity.needsRebuild && entity.isRenamed {
            try execute("ALTER TABLE \(SQLSchema.quote(entity.oldName)) RENAME TO \(temporary(entity.newName))")
        }
        for entity in change.entities where entity.needsRebuild { try execute("DROP TABLE \(SQLSchema.quote(entity.oldName))") }
        for name in change.removedEntities { try execute("DROP TABLE IF EXISTS \(SQLSchema.quote(name))") }
        for entity in change.entities where entity.needsRebuild || entity.isRenamed {
            try execute("ALTER TABLE \(temporary(entity.newName)) RENAME TO \(SQLSchema.quote(entity.newName))")
        }
        for entity in change.entities where !entity.needsRebuild { try addColumns(entity) }
        try moveRelationshipTables()
        try addRelationshipTables()
        try removeRelationshipTables()
        // Sequences before new tables: a new entity may take a renamed one's old name.
        try updateSequences()
        try addEntities()
    }

    /// A custom stage, before its body: the new version's tables and columns exist, the old
    /// version's are all still there.
    func expand() throws {
        for entity in change.entities { try addColumns(entity) }
        try addRelationshipTables()
        try addEntities()
    }

    /// A custom stage, after its body: what the new version dropped goes.
    func contract() throws {
        for entity in change.entities where !entity.removedColumns.isEmpty {
            let kept = entity.columns.map { ColumnPlan(name: $0.name, type: $0.type, source: $0.name, convertedFrom: nil, fill: nil) }
            try copy(entity, columns: kept)
            try execute("DROP TABLE \(SQLSchema.quote(entity.oldName))")
            try execute("ALTER TABLE \(temporary(entity.newName)) RENAME TO \(SQLSchema.quote(entity.newName))")
        }
        for name in change.removedEntities { try execute("DROP TABLE IF EXISTS \(SQLSchema.quote(name))") }
        try removeRelationshipTables()
        try updateSequences()
    }

    // MARK: Entity tables

    private func temporary(_ name: String) -> String { SQLSchema.quote("_og_migrating_\(name)") }

    /// Copies the old table into a new one of the new version's shape, named `temporary`.
    private func copy(_ entity: EntityChange, columns: [ColumnPlan]) throws {
        guard let description = to.entity(named: entity.newName) else { return }
        let target = temporary(entity.newName), source = SQLSchema.quote(entity.oldName)
        try execute("CREATE TABLE \(target) (\(SQLSchema.columnDefinitions(of: description).joined(separator: ", ")))")
        var bindings: [StoredValue] = []
        let expressions = columns.map { column -> String in
            guard let from = column.source, column.convertedFrom == nil else {
                if column.source == nil, let fill = column.fill { bindings.append(fill); return "?" }
                return "NULL"
            }
            if let fill = column.fill { bindings.append(fill); return "COALESCE(\(SQLSchema.quote(from)), ?)" }
            return SQLSchema.quote(from)
        }
        let names = columns.map { SQLSchema.quote($0.name) }
        let insert = try db.uncachedStatement("""
            INSERT INTO \(target) (_pk, _version\(names.map { ", \($0)" }.joined())) \
            SELECT _pk, _version\(expressions.map { ", \($0)" }.joined()) FROM \(source)
            """)
        insert.bind(bindings)
        try insert.run()
        for column in columns where column.convertedFrom != nil {
            try convert(column, of: entity, into: target)
        }
    }

    /// Converts one column's values row by row, exactly, or fails naming the first value
    /// that does not convert.
    private func convert(_ column: ColumnPlan, of entity: EntityChange, into target: String) throws {
        guard let source = column.source, let from = column.convertedFrom, let type = column.type else { return }
        let select = try db.uncachedStatement("SELECT _pk, \(SQLSchema.quote(source)) FROM \(SQLSchema.quote(entity.oldName)) WHERE \(SQLSchema.quote(source)) IS NOT NULL")
        defer { select.reset() }
        let update = try db.uncachedStatement("UPDATE \(target) SET \(SQLSchema.quote(column.name)) = ? WHERE _pk = ?")
        while try select.step() {
            let value = select.value(at: 1, as: from)
            guard let converted = ValueConversion.convert(value, from: from, to: type) else {
                throw MigrationError.stageFailed(MigrationFailure(
                    stage: stage, entity: entity.oldName, primaryKey: select.int(at: 0), property: source,
                    value: InspectedValue(value), reason: .inexactConversion(from: from, to: type)))
            }
            update.reset()
            update.bind([converted, .int(select.int(at: 0))])
            try update.run()
        }
        if let fill = column.fill {
            let fillNulls = try db.uncachedStatement("UPDATE \(target) SET \(SQLSchema.quote(column.name)) = ? WHERE \(SQLSchema.quote(column.name)) IS NULL")
            fillNulls.bind([fill])
            try fillNulls.run()
        }
    }

    /// New columns of a table that keeps its shape otherwise, and nils of attributes that
    /// became required, filled with the declared default.
    private func addColumns(_ entity: EntityChange) throws {
        let table = SQLSchema.quote(entity.newName)
        for column in entity.columns where column.source == nil {
            try execute("ALTER TABLE \(table) ADD COLUMN \(SQLSchema.quote(column.name)) \(column.sqlType)")
        }
        for column in entity.columns {
            guard let fill = column.fill else { continue }
            let statement = try db.uncachedStatement("UPDATE \(table) SET \(SQLSchema.quote(column.name)) = ? WHERE \(SQLSchema.quote(column.name)) IS NULL")
            statement.bind([fill])
            try statement.run()
        }
    }

    private func addEntities() throws {
        for name in change.addedEntities {
            guard let entity = to.entity(named: name) else { continue }
            try SQLiteStore.createTable(entity, model: to, in: db)
        }
    }

    /// Moves each renamed entity's key sequence, and drops the removed ones'.
    private func updateSequences() throws {
        let renames = change.entityRenames
        var maxima: [String: Int64] = [:]
        let read = try db.uncachedStatement("SELECT max FROM _og_sequence WHERE entity = ?")
        for old in renames.keys {
            read.reset()
            read.bind(.string(old), at: 1)
            if try read.step() { maxima[old] = read.int(at: 0) }
        }
        read.reset()
        let delete = try db.uncachedStatement("DELETE FROM _og_sequence WHERE entity = ?")
        for name in Array(renames.keys) + change.removedEntities {
            delete.reset()
            delete.bind(.string(name), at: 1)
            try delete.run()
        }
        let insert = try db.uncachedStatement("INSERT OR REPLACE INTO _og_sequence (entity, max) VALUES (?, ?)")
        for (old, new) in renames {
            insert.reset()
            insert.bind([.string(new), .int(maxima[old] ?? 0)])
            try insert.run()
        }
    }

    // MARK: Relationship tables

    private func moveRelationshipTables() throws {
        let moves = change.relationshipTables.moves
        for move in moves {
            let old = SQLSchema.quote(move.old), staged = temporary(move.new)
            if move.swapsColumns {
                try execute(SQLSchema.createJoinTable(staged))
                try execute("INSERT INTO \(staged) (\"a\", \"b\") SELECT \"b\", \"a\" FROM \(old)")
                try execute("DROP TABLE \(old)")
            } else {
                try execute("ALTER TABLE \(old) RENAME TO \(staged)")
            }
        }
        for move in moves { try execute("ALTER TABLE \(temporary(move.new)) RENAME TO \(SQLSchema.quote(move.new))") }
    }

    private func addRelationshipTables() throws {
        for (name, kind) in change.relationshipTables.added {
            switch kind {
            case .join: try SQLiteStore.createJoinTable(SQLSchema.quote(name), in: db)
            case .order: try execute(SQLSchema.createOrderTable(SQLSchema.quote(name)))
            }
        }
    }

    private func removeRelationshipTables() throws {
        for name in change.relationshipTables.removed { try execute("DROP TABLE IF EXISTS \(SQLSchema.quote(name))") }
    }

    private func execute(_ sql: String) throws { try db.execute(sql) }
}
