import Foundation
import ObjectGraph

/// ``SaveWriter`` for PostgreSQL: the statements of a save on the writer connection, inside
/// the transaction `PostgreSQLStore.save(_:)` opened. The same statements as SQLite's (the
/// fragments of `EntityTable` and `SQLSchema`), renumbered for libpq.
struct PostgreSQLSaveWriter: SaveWriter {
    let store: PostgreSQLStore
    let db: PostgreSQLConnection

    var model: ManagedObjectModel { store.model }
    var storeIdentifier: UUID { store.identifier }
    var recordsHistory: Bool { store.recordsHistory }

    func reserveKeys(_ entity: EntityDescription, count: Int) throws -> [Int64] {
        try store.reserveKeys(entity, count: count, in: db)
    }

    func existingRow(matchingUniqueKeysOf values: [StoredValue], entity: EntityDescription) throws -> (Int64, RowSnapshot)? {
        let table = store.table(for: entity)
        for group in entity.uniquenessPropertyIndices {
            guard let condition = SQLSchema.keyCondition(group, values: values, entity: entity, alias: "t0.") else { continue }
            let result = try db.query("SELECT \(raw: table.selectList) FROM \(raw: table.table) t0 WHERE \(condition)")
            if result.rowCount > 0 {
                let (id, row) = store.snapshot(result, row: 0, table: table)
                return (id.primaryKey ?? 0, row)
            }
        }
        return nil
    }

    func uniquenessGroup(clashingWith values: [StoredValue], entity: EntityDescription, excluding pk: Int64) throws -> [Int]? {
        for group in entity.uniquenessPropertyIndices {
            guard let condition = SQLSchema.keyCondition(group, values: values, entity: entity) else { continue }
            let found = try db.query("SELECT 1 FROM \(raw: SQLSchema.table(entity)) WHERE \(condition) AND _pk <> \(.int(pk)) LIMIT 1")
            if found.rowCount > 0 { return group }
        }
        return nil
    }

    func isUniquenessFailure(_ error: any Error) -> Bool {
        if case .server(let state, _, _)? = error as? StoreError { return state == PostgreSQLState.uniqueViolation }
        return false
    }

    /// A failed statement aborts a PostgreSQL transaction, and the save must still look the
    /// clashing values up afterwards: an insert skips a row that would break a unique index
    /// (`ON CONFLICT DO NOTHING`), and writing no row is the failure, in one round trip.
    func insert(_ entity: EntityDescription, primaryKey: Int64, values: [StoredValue]) throws {
        let insert = store.table(for: entity).insert(primaryKey: primaryKey, values: values)
        guard try db.run("\(insert) ON CONFLICT DO NOTHING") == 1 else {
            throw StoreError.server(sqlState: PostgreSQLState.uniqueViolation,
                                    message: "a unique index already holds the row's values", sql: insert.sql)
        }
    }

    /// A save's new rows of one entity, many per statement (``PostgreSQLMultiRowInsert``): one
    /// round trip per 512 rows rather than per row. A row a unique index refused is skipped
    /// (`ON CONFLICT DO NOTHING`) and missing from what `RETURNING _pk` gives back.
    func insert(_ entity: EntityDescription, rows: [SaveWriterRow]) throws -> (primaryKey: Int64, error: StoreError)? {
        let table = store.table(for: entity)
        let insert = store.saveInsert(for: entity)
        var values: [StoredValue] = []
        values.reserveCapacity(rows.count * insert.width)
        for row in rows {
            values.append(.int(row.primaryKey))
            values.append(.int(1))
            for column in table.columns { values.append(row.values[column.index]) }
        }
        var refused: Int64?
        try insert.run(values, in: db) { result, range in
            guard refused == nil, result.rowCount < range.count else { return }
            let written = Set((0..<result.rowCount).map { result.int($0, 0) })
            refused = rows[range].first { !written.contains($0.primaryKey) }?.primaryKey
        }
        return refused.map { ($0, StoreError.server(sqlState: PostgreSQLState.uniqueViolation,
                                                    message: "a unique index already holds the row's values", sql: nil)) }
    }

    /// An update that sets a property of a uniqueness constraint runs in a savepoint, rolled
    /// back when the index refuses it, so the transaction goes on; other updates need none.
    func update(_ entity: EntityDescription, primaryKey: Int64, values: [StoredValue], expected: Int64,
                only properties: [Int]?) throws -> Bool {
        let table = store.table(for: entity)
        let update = table.update(primaryKey: primaryKey, values: values, expected: expected,
                                  positions: properties.map(table.positions(of:)))
        let constrained = Set(entity.uniquenessPropertyIndices.joined())
        guard properties.map({ !constrained.isDisjoint(with: $0) }) ?? !constrained.isEmpty else {
            return try db.run(update) > 0
        }
        return try savepoint { try db.run(update) > 0 }
    }

    /// A save's updates of one entity setting the same columns, many per statement
    /// (``PostgreSQLMultiRowUpdate``): one round trip per 512 rows rather than per row.
    var writesUpdatesTogether: Bool { true }

    func update(_ entity: EntityDescription, rows: [SaveWriterUpdate], only properties: [Int]) throws -> Set<Int64> {
        let table = store.table(for: entity)
        return try store.saveUpdate(for: entity, positions: table.positions(of: properties)).run(rows, table: table, in: db)
    }

    func currentRow(_ entity: EntityDescription, primaryKey: Int64) throws -> RowSnapshot? {
        try row(entity, primaryKey: primaryKey, locking: "")
    }

    /// Read `FOR SHARE`: writers beside this one (other servers) wait to update or delete
    /// the row until this save ends, as they would after an `UPDATE` of it.
    func sharedRow(_ entity: EntityDescription, primaryKey: Int64) throws -> RowSnapshot? {
        try row(entity, primaryKey: primaryKey, locking: " FOR SHARE")
    }

    private func row(_ entity: EntityDescription, primaryKey: Int64, locking clause: String) throws -> RowSnapshot? {
        let table = store.table(for: entity)
        let result = try db.query("\(table.select(primaryKey: primaryKey))\(raw: clause)")
        return result.rowCount > 0 ? store.snapshot(result, row: 0, table: table).1 : nil
    }

    func delete(_ entity: EntityDescription, primaryKey: Int64, expected: Int64?) throws -> Bool {
        try db.run(store.table(for: entity).delete(primaryKey: primaryKey, expected: expected)) > 0
    }

    func writeToMany(_ entity: EntityDescription, primaryKey: Int64, values: [StoredValue], base: [StoredValue]?) throws {
        for statement in SQLSchema.toManyWrites(entity, model: model, ownerKey: primaryKey, values: values, base: base,
                                                dialect: store.dialect) {
            try db.run(statement)
        }
    }

    func deleteLinks(_ entity: EntityDescription, primaryKey: Int64) throws {
        for statement in SQLSchema.linkDeletions(entity, model: model, key: primaryKey) { try db.run(statement) }
    }

    func recordHistory(_ records: [HistoryRecord], author: String?, contextName: String?) throws -> PersistentHistoryToken? {
        try store.recordHistory(records, author: author, contextName: contextName, in: db)
    }

    func busyError() -> StoreError {
        .server(sqlState: PostgreSQLState.serializationFailure,
                message: "the row changed again while this save was writing it; try again", sql: nil)
    }

    /// Runs a statement that may break a unique index inside a savepoint, rolled back when it
    /// fails, so the transaction goes on.
    private func savepoint<T>(_ body: () throws -> T) throws -> T {
        try db.execute("SAVEPOINT og_write")
        do {
            let result = try body()
            try db.execute("RELEASE SAVEPOINT og_write")
            return result
        } catch let error as StoreError where isUniquenessFailure(error) {
            try db.execute("ROLLBACK TO SAVEPOINT og_write")
            throw error
        }
    }
}
