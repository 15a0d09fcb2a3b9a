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
        let table = store.table(for: entity)
        try insert(CollectionOfOne(SaveWriterRow(primaryKey: primaryKey, values: values)), into: table, sql: table.insertSQL)
    }

    /// Writes a save's new rows of one entity many to a statement (``EntityTable/insertStatements``:
    /// up to 64, then 8, then one by one). Why: a table with a search index (FTS5, kept by
    /// triggers) flushes the index's pending terms to disk at the end of every statement, so
    /// a statement per row wrote a tiny index segment per row, and merged them: 100,000
    /// invoices with a substring index took 3.3 s one by one, 1.0 s 64 rows at a time (0.24 s
    /// without the index).
    ///
    /// A statement a unique index refuses is undone whole by SQLite (the statement's own
    /// journal) and its rows written again one by one, which names the refused row as before.
    func insert(_ entity: EntityDescription, rows: [SaveWriterRow]) throws -> (primaryKey: Int64, error: StoreError)? {
        let table = store.table(for: entity)
        var start = rows.startIndex
        while start < rows.endIndex {
            guard let (count, sql) = table.insertStatements.first(where: { $0.rows <= rows.endIndex - start }) else { break }
            let chunk = rows[start..<(start + count)]
            start += count
            do {
                try insert(chunk, into: table, sql: sql)
            } catch let error as StoreError where isUniquenessFailure(error) {
                if let refused = try insertOneByOne(chunk, into: table) { return refused }
            }
        }
        return nil
    }

    private func insertOneByOne(_ rows: ArraySlice<SaveWriterRow>, into table: EntityTable) throws
        -> (primaryKey: Int64, error: StoreError)? {
        for row in rows {
            do {
                try insert(CollectionOfOne(row), into: table, sql: table.insertSQL)
            } catch let error as StoreError where isUniquenessFailure(error) {
                return (row.primaryKey, error)
            }
        }
        return nil
    }

    /// Runs `sql` (an ``EntityTable/insertStatements`` entry for as many rows) with the rows'
    /// keys and columns bound in place, without an array of them all.
    private func insert<Rows: Collection<SaveWriterRow>>(_ rows: Rows, into table: EntityTable, sql: String) throws {
        let statement = try db.statement(sql)
        defer { statement.reset() }
        var position: Int32 = 1
        for row in rows {
            statement.bind(.int(row.primaryKey), at: position)
            position += 1
            for column in table.columns {
                statement.bind(row.values[column.index], at: position)
                position += 1
            }
        }
        try statement.run()
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
