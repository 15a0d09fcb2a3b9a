import CSQLite
import Foundation

extension SQLiteStore {
    /// Reserves `count` primary keys of `entity` that no other coordinator or process will use.
    func reservePrimaryKeys(_ entity: String, count: Int, in db: SQLiteConnection) throws -> ClosedRange<Int64>? {
        guard count > 0 else { return nil }
        let statement = try db.statement("UPDATE _og_sequence SET max = max + ? WHERE entity = ? RETURNING max")
        defer { statement.reset() }
        statement.bind([.int(Int64(count)), .string(entity)])
        guard try statement.step() else {
            throw StoreError.sqlite(code: SQLITE_ERROR, message: "no key sequence for \(entity)", sql: nil)
        }
        let last = statement.int(at: 0)
        return (last - Int64(count) + 1)...last
    }

    /// Reserves permanent IDs for objects not saved yet (`obtainPermanentIDs(for:)`).
    func obtainPermanentIDs(_ ids: [ObjectID]) throws -> [ObjectID: ObjectID] {
        let grouped = Dictionary(grouping: ids.filter(\.isTemporaryID), by: \.entityName)
        return try pool.write { db in
            try db.transaction {
                var result: [ObjectID: ObjectID] = [:]
                for (entity, group) in grouped {
                    guard let range = try reservePrimaryKeys(entity, count: group.count, in: db) else { continue }
                    for (id, pk) in zip(group, range) {
                        result[id] = ObjectID(entityName: entity, key: .permanent(store: identifier, primaryKey: pk))
                    }
                }
                return result
            }
        }
    }

    /// Writes a save in one transaction: all of it, or nothing (the transaction rolls back on
    /// any error, conflicts and uniqueness violations included). See ``SQLiteSaveTransaction``.
    func save(_ request: SaveRequest) throws -> SaveResult {
        try pool.write { db in
            try db.transaction {
                var transaction = SQLiteSaveTransaction(store: self, request: request, db: db)
                return try transaction.run()
            }
        }
    }

    /// The permanent ID of a row of this store.
    func objectID(_ entity: String, primaryKey: Int64) -> ObjectID {
        ObjectID(entityCode: model.entity(named: entity)?.code ?? ObjectID.entityCode(for: entity), storeCode: storeCode,
                 value: primaryKey)
    }

    /// The row whose values of some uniqueness constraint equal `values`', if any.
    func existingRow(matchingUniqueKeysOf values: [StoredValue], entity: EntityDescription,
                     in db: SQLiteConnection) throws -> (Int64, RowSnapshot)? {
        let table = table(for: entity)
        for group in entity.uniquenessIndices {
            let key = group.map { values[$0] }
            if key.contains(where: \.isNull) { continue }
            let condition = group.map { "t0.\(SQLSchema.quote(entity.properties[$0].name)) = ?" }.joined(separator: " AND ")
            let statement = try db.statement("SELECT \(table.selectList) FROM \(table.table) t0 WHERE \(condition)")
            defer { statement.reset() }
            statement.bind(key)
            if try statement.step() {
                let (id, row) = table.snapshot(from: statement, store: storeCode)
                return (id.primaryKey ?? 0, row)
            }
        }
        return nil
    }

    /// The uniqueness constraint of `entity` (property indices) whose values another row than
    /// `pk` already has, if any: what a UNIQUE failure was about, found without parsing
    /// SQLite's message.
    func uniquenessGroup(clashingWith values: [StoredValue], entity: EntityDescription, excluding pk: Int64,
                         in db: SQLiteConnection) throws -> [Int]? {
        for group in entity.uniquenessIndices {
            let key = group.map { values[$0] }
            if key.contains(where: \.isNull) { continue }
            let condition = group.map { "\(SQLSchema.quote(entity.properties[$0].name)) = ?" }.joined(separator: " AND ")
            let statement = try db.statement("SELECT 1 FROM \(table(for: entity).table) WHERE \(condition) AND _pk <> ? LIMIT 1")
            defer { statement.reset() }
            statement.bind(key + [.int(pk)])
            if try statement.step() { return group }
        }
        return nil
    }

    /// Writes the row if its version is still `expected`: every column, or only `columns`
    /// (positions in `table.columns`), the ones the save changed.
    func runUpdate(_ table: EntityTable, pk: Int64, values: [StoredValue], expected: Int64,
                   only columns: [Int]? = nil, in db: SQLiteConnection) throws -> Bool {
        let statement: SQLiteStatement
        let written = columns ?? Array(table.columns.indices)
        if columns == nil {
            statement = try db.statement(table.updateSQL)
        } else {
            statement = try db.statement(table.updateSQL(only: written))
        }
        for (n, position) in written.enumerated() {
            statement.bind(values[table.columns[position].index], at: Int32(n + 1))
        }
        let count = Int32(written.count)
        statement.bind(.int(pk), at: count + 1)
        statement.bind(.int(expected), at: count + 2)
        try statement.run()
        return db.changes > 0
    }

    func currentRow(pk: Int64, table: EntityTable, in db: SQLiteConnection) throws -> RowSnapshot? {
        let statement = try db.statement(table.selectByKeySQL)
        defer { statement.reset() }
        statement.bind(.int(pk), at: 1)
        return try statement.step() ? table.snapshot(from: statement, store: storeCode).1 : nil
    }

    /// Many-to-many links and ordered positions, written from the values that changed.
    func writeToMany(entity: EntityDescription, ownerKey: Int64, values: [StoredValue],
                             base: [StoredValue]?, in db: SQLiteConnection) throws {
        for index in entity.relationshipIndices {
            guard let rel = entity.relationshipDescription(at: index), rel.isToMany,
                  case .references(let ids) = values[index] else { continue }
            let old: [ObjectID]? = base.flatMap { b in
                if index < b.count, case .references(let o) = b[index] { return o } else { return nil }
            }
            if let old, old == ids { continue }
            let keys = ids.compactMap(\.primaryKey)
            if rel.cardinality == .orderedToMany {
                let order = SQLSchema.orderTableName(entity: entity.name, relationship: rel.name)
                let clear = try db.statement("DELETE FROM \(order) WHERE owner = ?")
                clear.bind(.int(ownerKey), at: 1)
                try clear.run()
                let add = try db.statement("INSERT INTO \(order) (owner, member, position) VALUES (?, ?, ?)")
                for (position, key) in keys.enumerated() {
                    add.reset()
                    add.bind([.int(ownerKey), .int(key), .int(Int64(position))])
                    try add.run()
                }
            }
            if case .joinTable(let join, let owner, let member) = SQLSchema.mapping(of: rel, in: entity, model: model),
               owner == "\"a\"" {
                // Only the side owning column `a` writes, so a link is written once.
                let oldKeys = Set((old ?? []).compactMap(\.primaryKey))
                let newKeys = Set(keys)
                let remove = try db.statement("DELETE FROM \(join) WHERE \(owner) = ? AND \(member) = ?")
                for key in oldKeys.subtracting(newKeys) {
                    remove.reset()
                    remove.bind([.int(ownerKey), .int(key)])
                    try remove.run()
                }
                let add = try db.statement("INSERT OR IGNORE INTO \(join) (\(owner), \(member)) VALUES (?, ?)")
                for key in newKeys.subtracting(oldKeys) {
                    add.reset()
                    add.bind([.int(ownerKey), .int(key)])
                    try add.run()
                }
            }
        }
    }

    func deleteLinks(entity: EntityDescription, key: Int64, in db: SQLiteConnection) throws {
        for rel in entity.relationships where rel.isToMany {
            if case .joinTable(let join, let owner, _) = SQLSchema.mapping(of: rel, in: entity, model: model) {
                let statement = try db.statement("DELETE FROM \(join) WHERE \(owner) = ?")
                statement.bind(.int(key), at: 1)
                try statement.run()
            }
            if rel.cardinality == .orderedToMany {
                let order = SQLSchema.orderTableName(entity: entity.name, relationship: rel.name)
                let statement = try db.statement("DELETE FROM \(order) WHERE owner = ?")
                statement.bind(.int(key), at: 1)
                try statement.run()
            }
        }
    }
}
