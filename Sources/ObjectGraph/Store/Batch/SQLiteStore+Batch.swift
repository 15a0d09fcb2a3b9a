import CSQLite
import Foundation

/// Batch inserts, updates and deletes: plain SQL over the entity tables, in one write
/// transaction with their persistent history, so they are all or nothing like a save.
extension SQLiteStore {
    /// Inserts the rows `next` returns (full value arrays by property index), with keys from
    /// the entity's sequence. `finish` runs after the last row, inside the transaction: it
    /// throws to roll everything back (the rows' validation failures).
    ///
    /// Rows go in by up to ``EntityTable/rowsPerInsert`` per statement: besides saving
    /// statements, a search index's trigger then runs inside one statement for many rows, and
    /// FTS5, which flushes its pending tokens to disk at every statement that fires a
    /// trigger, flushes once per chunk instead of once per row (about 3× faster).
    func batchInsert(_ entity: EntityDescription, next: () throws -> [StoredValue]?, finish: () throws -> Void,
                     author: String?, contextName: String?) throws -> BatchOutcome {
        try batchWrite { db in
            var outcome = BatchOutcome()
            // History is written row by row, so rows made on demand are never all in memory.
            var history = recordsHistory ? try HistoryWriter(store: self, author: author, contextName: contextName, db: db) : nil
            let table = table(for: entity)
            // Keys are reserved in blocks, so the sequence row is written a few times, not once per row.
            var keys: ClosedRange<Int64>? = nil
            var nextKey: Int64 = 0
            var pending: [(key: Int64, values: [StoredValue])] = []
            while let values = try next() {
                if keys == nil || nextKey > keys?.upperBound ?? 0 {
                    keys = try reservePrimaryKeys(entity.name, count: 1024, in: db)
                    nextKey = keys?.lowerBound ?? 0
                }
                pending.append((nextKey, values))
                outcome.inserted.append(ObjectID(entityCode: entity.code, storeCode: storeCode, value: nextKey))
                try history?.append(HistoryRecord(entity: entity.name, primaryKey: nextKey, kind: .insert,
                                                  values: HistoryRecord.values(of: entity, old: nil, new: values)))
                nextKey += 1
                if pending.count == table.rowsPerInsert {
                    try uniquenessChecked(entity, inserting: pending, in: db) { try insert(pending, into: table, in: db) }
                    pending.removeAll(keepingCapacity: true)
                }
            }
            try uniquenessChecked(entity, inserting: pending, in: db) { try insert(pending, into: table, in: db) }
            try finish()
            // Unused reserved keys are simply skipped: keys are never reused anyway.
            outcome.historyToken = history?.finish()
            return outcome
        }
    }

    /// Inserts rows with their keys in one statement (a full chunk's, cached) or one each.
    private func insert(_ rows: [(key: Int64, values: [StoredValue])], into table: EntityTable,
                        in db: SQLiteConnection) throws {
        guard !rows.isEmpty else { return }
        // Each row's key, then its columns: the values of `insertSQL`, repeated in `chunkInsertSQL`.
        func bindings(_ rows: ArraySlice<(key: Int64, values: [StoredValue])>) -> [StoredValue] {
            var bindings: [StoredValue] = []
            bindings.reserveCapacity(rows.count * (table.columns.count + 1))
            for row in rows {
                bindings.append(.int(row.key))
                for column in table.columns { bindings.append(row.values[column.index]) }
            }
            return bindings
        }
        if rows.count == table.rowsPerInsert {
            try db.run(SQLFragment(table.chunkInsertSQL, bindings(rows[...])))
        } else {
            for n in rows.indices { try db.run(SQLFragment(table.insertSQL, bindings(rows[n...n]))) }
        }
    }

    /// Sets `values` (column property index → value) on the rows matching `condition`.
    ///
    /// When history records values of properties it sets, their old values are read first,
    /// in the same transaction (one SELECT with the update's own filter, those columns only).
    func batchUpdate(_ entity: EntityDescription, where condition: SQLFragment?, values: [(Int, StoredValue)],
                     author: String?, contextName: String?) throws -> BatchOutcome {
        try batchWrite { db in
            var outcome = BatchOutcome()
            let table = SQLSchema.table(entity)
            let assignments = values.map { index, value -> SQLFragment in
                ", \(raw: SQLSchema.quote(entity.properties[index].name)) = \(value)"
            }
            let filter: SQLFragment = condition.map { " WHERE _pk IN (SELECT t0._pk FROM \(raw: table) t0 WHERE \($0))" } ?? ""
            let related = try destinationsLosingRows(entity, values: values, filter: filter, in: db)
            let recorded = recordsHistory ? values.map(\.0).filter { entity.historyValueIndices.contains($0) } : []
            // The update's own filter, so the rows read are the rows it changes.
            let oldValues = try currentValues(of: entity, properties: recorded, filter: filter, in: db)
            let update: SQLFragment = """
                UPDATE \(raw: table) SET _version = _version + 1\(assignments.joined(separator: ""))\(filter) RETURNING _pk
                """
            let keys = try uniquenessChecked(entity, update: values, where: condition, in: db) { () throws -> [Int64] in
                let statement = try db.prepared(update)
                defer { statement.reset() }
                var keys: [Int64] = []
                while try statement.step() { keys.append(statement.int(at: 0)) }
                return keys
            }
            outcome.updated = keys.map { objectID(entity.name, primaryKey: $0) }
            var seen = Set<ObjectID>()
            var relatedRecords: [HistoryRecord] = []
            for (destination, pk, inverse) in related where !keys.isEmpty {
                let id = objectID(destination, primaryKey: pk)
                guard seen.insert(id).inserted else { continue }
                outcome.related.append(id)
                relatedRecords.append(HistoryRecord(entity: destination, primaryKey: pk, kind: .update, updated: [inverse]))
            }
            if recordsHistory && !keys.isEmpty {
                let names = values.map { entity.properties[$0.0].name }
                let records = keys.map { pk in
                    HistoryRecord(entity: entity.name, primaryKey: pk, kind: .update, updated: names,
                                  values: HistoryRecord.batchUpdateValues(entity, set: values, recorded: recorded, old: oldValues[pk]))
                } + relatedRecords
                outcome.historyToken = try recordHistory(records, author: author, contextName: contextName, in: db)
            }
            return outcome
        }
    }

    /// The destinations of to-one relationships the update sets that lose rows (their old
    /// destinations) or gain them (the new one): their to-many inverse changes too.
    private func destinationsLosingRows(_ entity: EntityDescription, values: [(Int, StoredValue)], filter: SQLFragment,
                                        in db: SQLiteConnection) throws -> [(entity: String, pk: Int64, inverse: String)] {
        var related: [(entity: String, pk: Int64, inverse: String)] = []
        for (index, value) in values {
            guard case .relationship(let r) = entity.properties[index] else { continue }
            let column = SQLSchema.quote(r.name)
            let rows: SQLFragment = filter.sql.isEmpty ? " WHERE" : "\(filter) AND"
            let old = try db.prepared(
                "SELECT DISTINCT \(raw: column) FROM \(raw: SQLSchema.table(entity))\(rows) \(raw: column) IS NOT NULL")
            defer { old.reset() }
            while try old.step() { related.append((r.destinationEntityName, old.int(at: 0), r.inverseName)) }
            if case .reference(let id) = value, let pk = id.primaryKey {
                related.append((r.destinationEntityName, pk, r.inverseName))
            }
        }
        return related
    }

    /// Runs `body` in a write transaction, turning the store's errors into batch errors. (A
    /// broken uniqueness constraint of the model was named by the statement that broke it:
    /// see ``uniquenessChecked(_:inserting:in:_:)``.)
    func batchWrite(_ body: (SQLiteConnection) throws -> BatchOutcome) throws -> BatchOutcome {
        do {
            return try pool.write { db in try db.transaction { try body(db) } }
        } catch let error as StoreError {
            throw BatchError.storeFailure(error)
        }
    }
}
