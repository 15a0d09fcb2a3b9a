import CSQLite
import Foundation

extension SQLiteStore {
    /// Reserves `count` primary keys of `entity` that no other coordinator or process will use.
    func reservePrimaryKeys(_ entity: String, count: Int, in db: SQLiteConnection) throws -> ClosedRange<Int64>? {
        guard count > 0 else { return nil }
        let statement = try db.prepared(
            "UPDATE _og_sequence SET max = max + \(.int(Int64(count))) WHERE entity = \(.string(entity)) RETURNING max")
        defer { statement.reset() }
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
    /// any error, conflicts and uniqueness violations included). See ``SaveTransaction``.
    func save(_ request: SaveRequest) throws -> SaveResult {
        try pool.write { db in
            checkpointer?.letWALStartOver()
            return try db.transaction(journalsInMemory: true) {
                var transaction = SaveTransaction(writer: SQLiteSaveWriter(store: self, db: db), request: request)
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
            guard let condition = SQLSchema.keyCondition(group, values: values, entity: entity, alias: "t0.") else { continue }
            let statement = try db.prepared("SELECT \(raw: table.selectList) FROM \(raw: table.table) t0 WHERE \(condition)")
            defer { statement.reset() }
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
            guard let condition = SQLSchema.keyCondition(group, values: values, entity: entity) else { continue }
            let statement = try db.prepared(
                "SELECT 1 FROM \(raw: table(for: entity).table) WHERE \(condition) AND _pk <> \(.int(pk)) LIMIT 1")
            defer { statement.reset() }
            if try statement.step() { return group }
        }
        return nil
    }

    /// Writes the row if its version is still `expected`: every column, or only `columns`
    /// (positions in `table.columns`), the ones the save changed.
    func runUpdate(_ table: EntityTable, pk: Int64, values: [StoredValue], expected: Int64,
                   only columns: [Int]? = nil, in db: SQLiteConnection) throws -> Bool {
        try db.run(table.update(primaryKey: pk, values: values, expected: expected, positions: columns))
        return db.changes > 0
    }

    func currentRow(pk: Int64, table: EntityTable, in db: SQLiteConnection) throws -> RowSnapshot? {
        let statement = try db.prepared(table.select(primaryKey: pk))
        defer { statement.reset() }
        return try statement.step() ? table.snapshot(from: statement, store: storeCode).1 : nil
    }

    /// Many-to-many links and ordered positions, written from the values that changed.
    func writeToMany(entity: EntityDescription, ownerKey: Int64, values: [StoredValue],
                     base: [StoredValue]?, in db: SQLiteConnection) throws {
        for statement in SQLSchema.toManyWrites(entity, model: model, ownerKey: ownerKey, values: values, base: base,
                                                dialect: dialect) {
            try db.run(statement)
        }
    }

    func deleteLinks(entity: EntityDescription, key: Int64, in db: SQLiteConnection) throws {
        for statement in SQLSchema.linkDeletions(entity, model: model, key: key) { try db.run(statement) }
    }
}
