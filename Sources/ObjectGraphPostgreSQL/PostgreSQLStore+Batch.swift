import Foundation
import ObjectGraph

/// Batch inserts and updates on PostgreSQL: plain SQL over the entity tables, in one write
/// transaction with their persistent history and the `pg_notify` of every commit (``write(_:)``),
/// with the SQLite store's results and errors. What a statement wrote comes back by
/// `RETURNING`, never by selecting it again.
extension PostgreSQLStore {
    /// Inserts the rows `next` returns, many per statement (``PostgreSQLMultiRowInsert``),
    /// with keys from the entity's identity sequence. `finish` runs after the last row,
    /// inside the transaction: it throws to roll everything back.
    ///
    /// A row that would break a unique index is skipped by the statement (`ON CONFLICT DO
    /// NOTHING`), which returns the keys it wrote: a key missing is the violation, named by
    /// looking its values up, and nothing is written.
    ///
    /// Rows made on demand cannot be drawn twice, so the first ``replayableRows`` drawn are
    /// kept: a transaction PostgreSQL aborts for a concurrent one runs again with them, like
    /// every write (``PostgreSQLTransactionRetry``). A larger batch aborted that way fails with
    /// ``StoreError/contention(location:sqlState:attempts:)`` rather than keep every row in memory.
    package func batchInsert(_ entity: EntityDescription, next: () throws -> [StoredValue]?, finish: () throws -> Void,
                             author: String?, contextName: String?) throws -> BatchOutcome {
        var kept: [[StoredValue]]? = []
        var abort: String?
        return try batchWrite { db in
            guard let replay = kept else {
                throw StoreError.contention(location: location, sqlState: abort ?? PostgreSQLState.serializationFailure, attempts: 1)
            }
            var replayed = 0
            let draw = { () throws -> [StoredValue]? in
                if replayed < replay.count {
                    replayed += 1
                    return replay[replayed - 1]
                }
                guard let row = try next() else { return nil }
                if let count = kept?.count, count < Self.replayableRows {
                    kept?.append(row)
                    replayed += 1
                } else {
                    kept = nil
                }
                return row
            }
            do {
                let outcome = try insertRows(entity, draw: draw, author: author, contextName: contextName, in: db)
                try finish()
                return outcome
            } catch StoreError.server(let state, let message, let sql) {
                abort = state
                throw StoreError.server(sqlState: state, message: message, sql: sql)
            }
        }
    }

    /// How many rows of a batch insert are kept to run it again after an abort.
    static let replayableRows = 10_000

    /// Inserts every row `draw` returns, with its history.
    private func insertRows(_ entity: EntityDescription, draw: () throws -> [StoredValue]?, author: String?,
                            contextName: String?, in db: PostgreSQLConnection) throws -> BatchOutcome {
        let table = table(for: entity)
        let insert = PostgreSQLMultiRowInsert(into: table.table, columns: ["_pk", "_version"] + table.columns.map(\.name),
                                              suffix: "ON CONFLICT DO NOTHING RETURNING _pk",
                                              maxRows: Self.batchInsertRowsPerStatement)
        var outcome = BatchOutcome()
        var history = recordsHistory ? PostgreSQLBatchHistoryWriter(store: self, db: db, author: author,
                                                                   contextName: contextName) : nil
        var keys: [Int64] = [], used = 0
        var pending: [StoredValue] = []
        while let values = try draw() {
            // Keys are reserved in blocks: one round trip per 1024 rows.
            if used == keys.count { (keys, used) = (try reserveKeys(entity, count: 1024, in: db), 0) }
            let key = keys[used]
            used += 1
            pending.append(.int(key))
            pending.append(.int(1))
            for column in table.columns { pending.append(values[column.index]) }
            outcome.inserted.append(objectID(entity.name, primaryKey: key))
            try history?.append(.make(entity: entity.name, primaryKey: key, kind: .insert,
                                      values: HistoryRecord.values(of: entity, old: nil, new: values)))
            if pending.count == 4096 * insert.width {
                try insertRows(pending, with: insert, entity: entity, in: db)
                pending.removeAll(keepingCapacity: true)
            }
        }
        try insertRows(pending, with: insert, entity: entity, in: db)
        // Unused reserved keys are simply skipped: keys are never reused anyway.
        outcome.historyToken = try history?.finish()
        return outcome
    }

    /// How many rows one statement of a batch insert writes at most (measured: see README).
    static let batchInsertRowsPerStatement = 512

    /// Runs the insert for `values` (rows one after another).
    /// - Throws: ``BatchError/uniquenessViolation(entity:properties:message:)`` when a row was
    ///   skipped for a uniqueness constraint of the model.
    private func insertRows(_ values: [StoredValue], with insert: PostgreSQLMultiRowInsert, entity: EntityDescription,
                            in db: PostgreSQLConnection) throws {
        try insert.run(values, in: db) { result, rows in
            guard result.rowCount < rows.count else { return }
            let written = Set((0..<result.rowCount).map { result.int($0, 0) })
            for row in rows {
                let rowValues = Array(values[(row * insert.width)..<((row + 1) * insert.width)])
                guard case .int(let key) = rowValues[0], !written.contains(key) else { continue }
                try refuseClash(of: entity, key: key, columns: Array(rowValues.dropFirst(2)), in: db)
            }
        }
    }

    /// Throws the uniqueness violation of the skipped row `key` (its column values given).
    private func refuseClash(of entity: EntityDescription, key: Int64, columns: [StoredValue],
                             in db: PostgreSQLConnection) throws -> Never {
        let table = table(for: entity)
        var values = [StoredValue](repeating: .null, count: entity.properties.count)
        for (column, value) in zip(table.columns, columns) { values[column.index] = value }
        let error = StoreError.server(sqlState: PostgreSQLState.uniqueViolation,
                                      message: "a unique index already holds a row's values", sql: nil)
        for group in entity.uniquenessPropertyIndices {
            guard let condition = SQLSchema.keyCondition(group, values: values, entity: entity) else { continue }
            let found = try db.query("SELECT 1 FROM \(raw: table.table) WHERE \(condition) AND _pk <> \(.int(key)) LIMIT 1")
            if found.rowCount > 0 { throw Self.violation(entity, group, error) }
        }
        throw error
    }

    static func violation(_ entity: EntityDescription, _ group: [Int], _ error: StoreError) -> BatchError {
        .uniquenessViolation(entity: entity.name, properties: group.map { entity.properties[$0].name },
                             message: error.description)
    }

    /// Sets `values` (property index → value) on the rows matching `condition`, in one
    /// statement that returns each row's key and the old values history and the to-many
    /// inverses need, read under the row locks it takes (`FOR UPDATE`):
    ///
    /// ```sql
    /// UPDATE "Invoice" u SET _version = u._version + 1, "status" = $1
    /// FROM (SELECT t0._pk, t0."client" FROM "Invoice" t0 WHERE … FOR UPDATE OF t0) o
    /// WHERE u._pk = o._pk RETURNING u._pk, o."client"
    /// ```
    package func batchUpdate(_ entity: EntityDescription, where condition: SQLFragment?, values: [(Int, StoredValue)],
                             author: String?, contextName: String?) throws -> BatchOutcome {
        let recorded = recordsHistory ? values.map(\.0).filter { entity.historyValueIndices.contains($0) } : []
        let toOnes = values.compactMap { index, _ -> Int? in
            if case .relationship = entity.properties[index] { return index } else { return nil }
        }
        let returned = Array(Set(recorded + toOnes)).sorted()
        let table = SQLSchema.table(entity)
        let assignments = values.map { index, value -> SQLFragment in
            ", \(raw: SQLSchema.quote(entity.properties[index].name)) = \(value)"
        }
        let update: SQLFragment = """
            UPDATE \(raw: table) u SET _version = u._version + 1\(assignments.joined(separator: ""))
            FROM (\(oldValues(entity, returned, where: condition))) o WHERE u._pk = o._pk
            RETURNING u._pk\(raw: returned.map { ", o.\(SQLSchema.quote(entity.properties[$0].name))" }.joined())
            """
        return try batchWrite { db in
            let result = try uniquenessChecked(entity, update: values, where: condition, in: db) { try db.query(update) }
            var outcome = BatchOutcome()
            var records: [HistoryRecord] = []
            var related: [ObjectID: String] = [:]
            let names = values.map { entity.properties[$0.0].name }
            for row in 0..<result.rowCount {
                let pk = result.int(row, 0)
                outcome.updated.append(objectID(entity.name, primaryKey: pk))
                var old: [Int: StoredValue] = [:]
                for (n, index) in returned.enumerated() {
                    old[index] = storedValue(result, row, n + 1, property: entity.properties[index])
                    if case .reference(let id) = old[index], case .relationship(let r) = entity.properties[index] {
                        related[id] = r.inverseName
                    }
                }
                records.append(.make(entity: entity.name, primaryKey: pk, kind: .update, updated: names,
                                     values: HistoryRecord.batchUpdateValues(entity, set: values, recorded: recorded, old: old)))
            }
            guard result.rowCount > 0 else { return outcome }
            for (index, value) in values {
                if case .reference(let id) = value, case .relationship(let r) = entity.properties[index] { related[id] = r.inverseName }
            }
            // Old and new destinations of a changed to-one: their to-many inverse changed too.
            outcome.related = related.keys.sorted { ($0.entityName, $0.primaryKey ?? 0) < ($1.entityName, $1.primaryKey ?? 0) }
            records += outcome.related.map { id in
                .make(entity: id.entityName, primaryKey: id.primaryKey ?? 0, kind: .update, updated: [related[id] ?? ""])
            }
            outcome.historyToken = try recordBatchHistory(records, author: author, contextName: contextName, in: db)
            return outcome
        }
    }

    /// Records a batch's changes many per statement (``PostgreSQLBatchHistoryWriter``); nil
    /// when the store records no history or there is no change.
    func recordBatchHistory(_ records: [HistoryRecord], author: String?, contextName: String?,
                            in db: PostgreSQLConnection) throws -> PersistentHistoryToken? {
        guard recordsHistory else { return nil }
        var history = PostgreSQLBatchHistoryWriter(store: self, db: db, author: author, contextName: contextName)
        for record in records { try history.append(record) }
        return try history.finish()
    }

    /// `SELECT t0._pk, <the properties' columns> FROM <table> t0 WHERE <condition> FOR UPDATE OF t0`.
    private func oldValues(_ entity: EntityDescription, _ indices: [Int], where condition: SQLFragment?) -> SQLFragment {
        let columns = indices.map { ", t0.\(SQLSchema.quote(entity.properties[$0].name))" }.joined()
        let filter: SQLFragment = condition.map { " WHERE \($0)" } ?? ""
        return "SELECT t0._pk\(raw: columns) FROM \(raw: SQLSchema.table(entity)) t0\(filter) FOR UPDATE OF t0"
    }

    /// Runs a batch update's statement; one that sets a property of a uniqueness constraint
    /// runs in a savepoint, rolled back when a unique index refuses it, so the constraint can
    /// be looked up in the transaction afterwards.
    /// - Throws: ``BatchError/uniquenessViolation(entity:properties:message:)`` naming the constraint.
    private func uniquenessChecked<T>(_ entity: EntityDescription, update values: [(Int, StoredValue)],
                                      where condition: SQLFragment?, in db: PostgreSQLConnection,
                                      _ body: () throws -> T) throws -> T {
        let set = Dictionary(values, uniquingKeysWith: { _, later in later })
        let groups = entity.uniquenessPropertyIndices.filter { $0.contains { set[$0] != nil } }
        guard !groups.isEmpty else { return try body() }
        try db.execute("SAVEPOINT og_batch")
        do {
            let result = try body()
            try db.execute("RELEASE SAVEPOINT og_batch")
            return result
        } catch let error as StoreError {
            guard case .server(let state, _, _) = error, state == PostgreSQLState.uniqueViolation else { throw error }
            try db.execute("ROLLBACK TO SAVEPOINT og_batch")
            for group in groups {
                guard let query = BatchUniquenessStatements.clash(of: group, set: set, where: condition, entity: entity) else { continue }
                if try db.query(query).rowCount > 0 { throw Self.violation(entity, group, error) }
            }
            throw error
        }
    }

    /// Runs `body` as a write transaction (``write(_:)``: retried, announced), turning the
    /// store's errors into batch errors.
    func batchWrite(_ body: (PostgreSQLConnection) throws -> BatchOutcome) throws -> BatchOutcome {
        do {
            return try write(body)
        } catch let error as StoreError {
            throw BatchError.storeFailure(error)
        }
    }

    /// A column of a result read as the stored value of its property.
    func storedValue(_ result: PostgreSQLResult, _ row: Int, _ column: Int, property: PropertyDescription) -> StoredValue {
        switch property {
        case .attribute(let a):
            return result.value(row, column, as: a.type)
        case .relationship(let r):
            return result.isNull(row, column) ? .null : .reference(objectID(r.destinationEntityName, primaryKey: result.int(row, column)))
        }
    }
}
