import CSQLite
import Foundation

/// One root save written to SQLite, inside the transaction the store opened for it: the
/// inserts, then the updates, then the deletes, then the history record. Any error leaves
/// the transaction to be rolled back: all of the save, or nothing.
///
/// History records the values of properties that record them as they reach the file: old
/// values are the row the write replaced (the context's base when the row was at the version
/// it read, the file's row when a merge policy wrote over a newer one), so a chain of nested
/// saves records once, what the root wrote.
///
/// Optimistic locking: an update or delete names the row version its context read
/// (`UPDATE … WHERE _pk = ? AND _version = ?`); a row found at another version is a
/// conflict, resolved by the request's merge policy (``RowMerge``).
struct SQLiteSaveTransaction {
    let store: SQLiteStore
    let request: SaveRequest
    let db: SQLiteConnection
    private(set) var result = SaveResult()
    private var history: [HistoryRecord] = []
    private var conflicts: [MergeConflict] = []
    /// Inserts that became an existing row (an upsert under a trump policy): the row.
    private var upserts: [ObjectID: RowSnapshot] = [:]

    init(store: SQLiteStore, request: SaveRequest, db: SQLiteConnection) {
        self.store = store
        self.request = request
        self.db = db
    }

    /// Writes the whole request.
    /// - Throws: ``SaveError/mergeConflict(_:)`` (every conflict of the save),
    ///   ``SaveError/uniquenessViolation(_:)``, ``StoreError``.
    mutating func run() throws -> SaveResult {
        try assignPermanentKeys()
        try findUpserts()
        for insert in request.inserts { try write(insert) }
        for update in request.updates { try write(update) }
        for delete in request.deletes { try write(delete) }
        if !conflicts.isEmpty { throw SaveError.mergeConflict(conflicts) }
        if store.recordsHistory && !history.isEmpty {
            result.historyToken = try store.recordHistory(history, author: request.author,
                                                          contextName: request.contextName, in: db)
        }
        return result
    }

    // MARK: Keys

    /// Permanent keys for the inserts that do not have one yet, reserved in one step per entity.
    private mutating func assignPermanentKeys() throws {
        var temporary: [SaveRequest.Insert] = []
        for insert in request.inserts where insert.id.isTemporaryID {
            // Made permanent earlier (`obtainPermanentIDs(for:)`): its key is reserved already.
            if let reserved = request.resolveTemporaryID(insert.id) {
                result.permanentIDs[insert.id] = reserved
            } else {
                temporary.append(insert)
            }
        }
        let needKeys = Dictionary(grouping: temporary, by: \.entity)
        for (entity, inserts) in needKeys {
            guard let range = try store.reservePrimaryKeys(entity, count: inserts.count, in: db) else { continue }
            for (insert, pk) in zip(inserts, range) {
                result.permanentIDs[insert.id] = store.objectID(entity, primaryKey: pk)
            }
        }
    }

    /// Under the trump policies, an insert whose unique key already exists in the store
    /// becomes that row: ours updates it, or the store's row is adopted as it is.
    private mutating func findUpserts() throws {
        guard RowMerge.resolveInsert(policy: request.mergePolicy) != .refuse else { return }
        for insert in request.inserts {
            guard let entity = store.model.entity(named: insert.entity), !entity.uniquenessIndices.isEmpty,
                  let (pk, row) = try store.existingRow(matchingUniqueKeysOf: insert.values, entity: entity, in: db)
            else { continue }
            result.permanentIDs[insert.id] = store.objectID(insert.entity, primaryKey: pk)
            upserts[insert.id] = row
        }
    }

    private func permanent(_ id: ObjectID) throws -> ObjectID {
        if !id.isTemporaryID { return id }
        if let p = result.permanentIDs[id] ?? request.resolveTemporaryID(id) { return p }
        throw SaveError.temporaryIDOutsideHierarchy(id)
    }

    /// The values with every reference made permanent.
    private func resolved(_ values: [StoredValue]) throws -> [StoredValue] {
        var out = values
        for i in out.indices {
            switch out[i] {
            case .reference(let id): out[i] = .reference(try permanent(id))
            case .references(let ids): out[i] = .references(try ids.map(permanent))
            default: break
            }
        }
        return out
    }

    private mutating func record(_ make: @autoclosure () -> HistoryRecord) {
        if store.recordsHistory { history.append(make()) }
    }

    // MARK: Inserts

    private mutating func write(_ insert: SaveRequest.Insert) throws {
        guard let entity = store.model.entity(named: insert.entity) else { return }
        let table = store.table(for: entity)
        let id = try permanent(insert.id)
        let values = try resolved(insert.values)
        guard let pk = id.primaryKey else { throw SaveError.temporaryIDOutsideHierarchy(id) }
        if let existing = upserts[insert.id] {
            try writeUpsert(id: id, pk: pk, values: values, existing: existing, entity: entity, table: table)
            return
        }
        let insert = SQLFragment(table.insertSQL, [.int(pk)] + table.columns.map { values[$0.index] })
        try uniquenessChecked(id: id, pk: pk, values: values, entity: entity) { try db.run(insert) }
        try store.writeToMany(entity: entity, ownerKey: pk, values: values, base: nil, in: db)
        result.written[id] = RowSnapshot(values: values, version: 1)
        record(HistoryRecord(entity: entity.name, primaryKey: pk, kind: .insert,
                             values: SQLiteStore.historyValues(of: entity, old: nil, new: values)))
    }

    private mutating func writeUpsert(id: ObjectID, pk: Int64, values: [StoredValue], existing: RowSnapshot,
                                      entity: EntityDescription, table: EntityTable) throws {
        if RowMerge.resolveInsert(policy: request.mergePolicy) == .adoptTheirs {
            result.rolledBack[id] = existing      // the store's row wins; we adopt it
            return
        }
        guard try store.runUpdate(table, pk: pk, values: values, expected: existing.version, in: db) else {
            throw StoreError.busy(path: store.path, timeout: store.busyTimeout)
        }
        result.written[id] = RowSnapshot(values: values, version: existing.version + 1)
        record(HistoryRecord(entity: entity.name, primaryKey: pk, kind: .update,
                             updated: SQLiteStore.changedProperties(values, from: existing.values, entity: entity),
                             values: SQLiteStore.historyValues(of: entity, old: existing.values, new: values)))
    }

    // MARK: Updates

    private mutating func write(_ update: SaveRequest.Update) throws {
        guard let entity = store.model.entity(named: update.entity), let pk = update.id.primaryKey else { return }
        let table = store.table(for: entity)
        let values = try resolved(update.values)
        let changedColumns = table.columns.indices.filter { n in
            let i = table.columns[n].index
            return i >= update.base.count || PropertyMerge.changedByUs(base: update.base[i], ours: update.values[i])
        }
        let wrote = try uniquenessChecked(id: update.id, pk: pk, values: values, entity: entity) {
            try store.runUpdate(table, pk: pk, values: values, expected: update.expectedVersion, only: changedColumns,
                                in: db)
        }
        // What the row held before this write: the base, since the row is at the version the
        // base was read at when the first write succeeds (versions change with every write).
        var written = (values: values, version: update.expectedVersion + 1, old: update.base)
        if !wrote {
            guard let rewritten = try writeOverChangedRow(update, values: values, pk: pk, table: table, entity: entity)
            else { return }
            written = rewritten
        }
        try store.writeToMany(entity: entity, ownerKey: pk, values: written.values, base: update.base, in: db)
        result.written[update.id] = RowSnapshot(values: written.values, version: written.version)
        record(HistoryRecord(entity: entity.name, primaryKey: pk, kind: .update,
                             updated: SQLiteStore.changedProperties(written.values, from: update.base, entity: entity),
                             values: SQLiteStore.historyValues(of: entity, old: written.old, new: written.values)))
    }

    /// The row changed or vanished since the context read it: resolves by the merge policy
    /// (``RowMerge``) and writes over the store's row. Nil when nothing is written: a conflict
    /// was recorded, or our changes were dropped for the store's row.
    private mutating func writeOverChangedRow(_ update: SaveRequest.Update, values: [StoredValue], pk: Int64,
                                              table: EntityTable, entity: EntityDescription) throws
        -> (values: [StoredValue], version: Int64, old: [StoredValue])? {
        guard let theirs = try store.currentRow(pk: pk, table: table, in: db) else {
            if RowMerge.refusesUpdateOfDeletedRow(policy: request.mergePolicy) {
                conflicts.append(MergeConflict(objectID: update.id, deletedElsewhere: true,
                                               expectedVersion: update.expectedVersion, foundVersion: nil, properties: []))
            } else {
                result.rolledBack[update.id] = .some(nil)
            }
            return nil
        }
        let merged: [StoredValue]
        switch RowMerge.resolve(base: update.base, ours: values, theirs: theirs.values, entity: entity,
                                policy: request.mergePolicy) {
        case .write(let values):
            merged = values
        case .keepTheirs:
            result.rolledBack[update.id] = theirs
            return nil
        case .conflict(let properties):
            conflicts.append(MergeConflict(objectID: update.id, deletedElsewhere: false,
                                           expectedVersion: update.expectedVersion, foundVersion: theirs.version,
                                           properties: properties))
            return nil
        }
        let rewrote = try uniquenessChecked(id: update.id, pk: pk, values: merged, entity: entity) {
            try store.runUpdate(table, pk: pk, values: merged, expected: theirs.version, in: db)
        }
        guard rewrote else { throw StoreError.busy(path: store.path, timeout: store.busyTimeout) }
        return (merged, theirs.version + 1, theirs.values)
    }

    // MARK: Deletes

    private mutating func write(_ delete: SaveRequest.Delete) throws {
        guard let entity = store.model.entity(named: delete.entity), let pk = delete.id.primaryKey else { return }
        let table = store.table(for: entity)
        // The row before it goes, for the tombstone and the old values history keeps.
        let keepsValues = !entity.historyValueIndices.isEmpty || entity.attributes.contains(where: \.isPreservedInHistoryOnDeletion)
        let row = store.recordsHistory && keepsValues ? try store.currentRow(pk: pk, table: table, in: db)?.values : nil
        try db.run(SQLFragment(table.deleteSQL, [.int(pk), .int(delete.expectedVersion)]))
        if db.changes == 0, let theirs = try store.currentRow(pk: pk, table: table, in: db) {
            // Changed since read: `.error` refuses; the other policies delete it anyway.
            if !RowMerge.deletesChangedRow(policy: request.mergePolicy) {
                conflicts.append(MergeConflict(objectID: delete.id, deletedElsewhere: false,
                                               expectedVersion: delete.expectedVersion, foundVersion: theirs.version,
                                               properties: []))
                return
            }
            try db.run("DELETE FROM \(raw: table.table) WHERE _pk = \(.int(pk))")
        }
        try store.deleteLinks(entity: entity, key: pk, in: db)
        result.deleted.insert(delete.id)
        record(HistoryRecord(entity: entity.name, primaryKey: pk, kind: .delete,
                             tombstone: row.flatMap { SQLiteStore.tombstone(of: entity, row: $0) },
                             values: row.map { SQLiteStore.historyValues(of: entity, old: $0, new: nil) } ?? []))
    }

    // MARK: Uniqueness

    /// Runs a write; a UNIQUE constraint it breaks becomes ``SaveError/uniquenessViolation(_:)``
    /// naming the object and the model's constraint, found by looking the values up (never by
    /// reading SQLite's message). A unique index the model does not declare stays a store error.
    private func uniquenessChecked<T>(id: ObjectID, pk: Int64, values: [StoredValue], entity: EntityDescription,
                                      _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError where error.resultCode == SQLiteResultCode.constraintUnique {
            guard let group = try store.uniquenessGroup(clashingWith: values, entity: entity, excluding: pk, in: db)
            else { throw SaveError.storeFailure(error) }
            throw SaveError.uniquenessViolation(UniquenessViolation(
                entity: entity.name, properties: group.map { entity.properties[$0].name },
                values: group.map { InspectedValue(values[$0]) }, objectID: id))
        }
    }
}
