import Foundation

/// ``SaveWriter`` for SQLite: the store's statements on the writer connection, inside the
/// transaction `SQLiteStore.save(_:)` opened.
struct SQLiteSaveWriter: SaveWriter {
    let store: SQLiteStore
    let db: SQLiteConnection

    var model: ManagedObjectModel { store.model }
    var storeIdentifier: UUID { store.identifier }
    var recordsHistory: Bool { store.recordsHistory }

    func reserveKeys(_ entity: EntityDescription, count: Int) throws -> [Int64] {
        try store.reservePrimaryKeys(entity.name, count: count, in: db).map(Array.init) ?? []
    }

    func existingRow(matchingUniqueKeysOf values: [StoredValue], entity: EntityDescription) throws -> (Int64, RowSnapshot)? {
        try store.existingRow(matchingUniqueKeysOf: values, entity: entity, in: db)
    }

    func uniquenessGroup(clashingWith values: [StoredValue], entity: EntityDescription, excluding pk: Int64) throws -> [Int]? {
        try store.uniquenessGroup(clashingWith: values, entity: entity, excluding: pk, in: db)
    }

    func isUniquenessFailure(_ error: any Error) -> Bool {
        (error as? StoreError)?.resultCode == SQLiteResultCode.constraintUnique
    }

    func insert(_ entity: EntityDescription, primaryKey: Int64, values: [StoredValue]) throws {
        try db.run(store.table(for: entity).insert(primaryKey: primaryKey, values: values))
    }

    func update(_ entity: EntityDescription, primaryKey: Int64, values: [StoredValue], expected: Int64,
                only properties: [Int]?) throws -> Bool {
        let table = store.table(for: entity)
        return try store.runUpdate(table, pk: primaryKey, values: values, expected: expected,
                                   only: properties.map(table.positions(of:)), in: db)
    }

    func currentRow(_ entity: EntityDescription, primaryKey: Int64) throws -> RowSnapshot? {
        try store.currentRow(pk: primaryKey, table: store.table(for: entity), in: db)
    }

    func delete(_ entity: EntityDescription, primaryKey: Int64, expected: Int64?) throws -> Bool {
        try db.run(store.table(for: entity).delete(primaryKey: primaryKey, expected: expected))
        return db.changes > 0
    }

    func writeToMany(_ entity: EntityDescription, primaryKey: Int64, values: [StoredValue], base: [StoredValue]?) throws {
        try store.writeToMany(entity: entity, ownerKey: primaryKey, values: values, base: base, in: db)
    }

    func deleteLinks(_ entity: EntityDescription, primaryKey: Int64) throws {
        try store.deleteLinks(entity: entity, key: primaryKey, in: db)
    }

    func recordHistory(_ records: [HistoryRecord], author: String?, contextName: String?) throws -> PersistentHistoryToken? {
        try store.recordHistory(records, author: author, contextName: contextName, in: db)
    }

    func busyError() -> StoreError {
        .busy(path: store.path, timeout: store.busyTimeout)
    }
}
