import CSQLite
import Foundation

/// Batch deletes with the model's delete rules applied in SQL.
///
/// The keys to delete are gathered in a temporary table (`temp._og_batch`, on the writer
/// connection only) and grown to a fixed point along cascade rules; then deny rules and
/// required inverses are checked against rows outside that set, references are nullified,
/// link rows removed, and the rows deleted. Everything runs in one transaction: a refusal
/// leaves the file as it was.
extension SQLiteStore {
    func batchDelete(_ entity: EntityDescription, _ selection: BatchDeleteSelection,
                     author: String?, contextName: String?) throws -> BatchOutcome {
        let rules = BatchDeleteRules(model: model, keyTable: "temp._og_batch", dialect: dialect, recordsHistory: recordsHistory)
        if case .condition(let condition) = selection, !rules.needsRules(entity) {
            return try batchWrite { db in try directDelete(entity, where: condition, author: author, contextName: contextName, in: db) }
        }
        return try batchWrite { db in
            try db.execute("CREATE TEMP TABLE IF NOT EXISTS _og_batch (entity TEXT NOT NULL, pk INTEGER NOT NULL, PRIMARY KEY (entity, pk)) WITHOUT ROWID")
            try db.execute("DELETE FROM temp._og_batch")
            defer { try? db.execute("DELETE FROM temp._og_batch") }
            try db.run(rules.selection(selection, of: entity))
            try cascade(rules, in: db)
            let entities = try batchEntities(in: db)
            try check(rules, for: entities, in: db)

            var outcome = BatchOutcome()
            var history = recordsHistory ? try HistoryWriter(store: self, author: author, contextName: contextName, db: db) : nil
            for e in entities {
                // Nullified references first (those rows stay, with a new version).
                try nullifyReferences(to: e, rules, outcome: &outcome, history: &history, in: db)
                for statement in rules.linkDeletions(of: e) { try db.run(statement) }
                try deleteRows(of: e, rules, outcome: &outcome, history: &history, in: db)
            }
            outcome.historyToken = history?.finish()
            return outcome
        }
    }

    /// Clears the to-one references of rows outside the batch to the batch's rows of `e`.
    private func nullifyReferences(to e: EntityDescription, _ rules: BatchDeleteRules, outcome: inout BatchOutcome,
                                   history: inout HistoryWriter?, in db: SQLiteConnection) throws {
        for (other, column, relationshipName) in rules.nullifiedReferences(to: e) {
            let cleared = try clearedReferences(other, relationship: relationshipName, to: e, rules, in: db)
            let update = try db.prepared("""
                UPDATE \(raw: SQLSchema.table(other)) SET \(raw: column) = NULL, _version = _version + 1
                WHERE \(rules.referencing(e, from: other, column: column)) RETURNING _pk
                """)
            while try update.step() {
                let pk = update.int(at: 0)
                outcome.updated.append(ObjectID(entityCode: other.code, storeCode: storeCode, value: pk))
                try history?.append(HistoryRecord(entity: other.name, primaryKey: pk, kind: .update, updated: [relationshipName],
                                                  values: cleared[pk].map { [$0] } ?? []))
            }
            update.reset()
        }
    }

    /// Deletes the batch's rows of `e`, their tombstones and old values read first.
    private func deleteRows(of e: EntityDescription, _ rules: BatchDeleteRules, outcome: inout BatchOutcome,
                            history: inout HistoryWriter?, in db: SQLiteConnection) throws {
        let oldRows = history == nil ? [:] : try currentValues(of: e, properties: rules.recordedOnDeletion(e),
                                                               filter: "WHERE t0._pk IN \(rules.keys(of: e))", in: db)
        let delete = try db.prepared("DELETE FROM \(raw: SQLSchema.table(e)) WHERE _pk IN \(rules.keys(of: e)) RETURNING _pk")
        var keys: [Int64] = []
        while try delete.step() { keys.append(delete.int(at: 0)) }
        delete.reset()
        for pk in keys {
            outcome.deleted.append(ObjectID(entityCode: e.code, storeCode: storeCode, value: pk))
            guard history != nil else { continue }
            let old = oldRows[pk] ?? [:]
            let row = e.properties.indices.map { old[$0] ?? .unloaded }
            try history?.append(HistoryRecord(entity: e.name, primaryKey: pk, kind: .delete,
                                              tombstone: HistoryRecord.tombstone(of: e, row: row),
                                              values: old.isEmpty ? [] : HistoryRecord.values(of: e, old: row, new: nil)))
        }
    }

    /// The common case (rows nothing else depends on): one DELETE, no key table.
    private func directDelete(_ entity: EntityDescription, where condition: SQLFragment?, author: String?,
                              contextName: String?, in db: SQLiteConnection) throws -> BatchOutcome {
        let table = SQLSchema.table(entity)
        let filter: SQLFragment = condition.map { " WHERE _pk IN (SELECT t0._pk FROM \(raw: table) t0 WHERE \($0))" } ?? ""
        let statement = try db.prepared("DELETE FROM \(raw: table)\(filter) RETURNING _pk")
        defer { statement.reset() }
        var outcome = BatchOutcome()
        var keys: [Int64] = []
        while try statement.step() { keys.append(statement.int(at: 0)) }
        outcome.deleted = keys.map { ObjectID(entityCode: entity.code, storeCode: storeCode, value: $0) }
        if recordsHistory && !keys.isEmpty {
            let records = keys.map { HistoryRecord(entity: entity.name, primaryKey: $0, kind: .delete) }
            outcome.historyToken = try recordHistory(records, author: author, contextName: contextName, in: db)
        }
        return outcome
    }

    /// Adds the destinations of cascade rules until nothing new is added.
    private func cascade(_ rules: BatchDeleteRules, in db: SQLiteConnection) throws {
        var added = true
        while added {
            added = false
            for e in try batchEntities(in: db) {
                for statement in rules.cascades(from: e) {
                    try db.run(statement)
                    if db.changes > 0 { added = true }
                }
            }
        }
    }

    private func batchEntities(in db: SQLiteConnection) throws -> [EntityDescription] {
        let statement = try db.statement("SELECT DISTINCT entity FROM temp._og_batch")
        defer { statement.reset() }
        var result: [EntityDescription] = []
        while try statement.step() {
            if let name = statement.string(at: 0), let e = model.entity(named: name) { result.append(e) }
        }
        return result
    }

    /// Deny rules, and nullify rules whose inverse is a required to-one: refused when rows
    /// outside the batch would be affected.
    private func check(_ rules: BatchDeleteRules, for entities: [EntityDescription], in db: SQLiteConnection) throws {
        for e in entities {
            for (count, refusal) in rules.checks(for: e) {
                let statement = try db.prepared(count)
                _ = try statement.step()
                let found = Int(statement.int(at: 0))
                statement.reset()
                if found > 0 { throw refusal(found) }
            }
        }
    }

    /// The old → nil values of a to-one relationship of `other` that records values, for the
    /// rows outside the batch whose destination in `e` the batch deletes, by primary key.
    private func clearedReferences(_ other: EntityDescription, relationship name: String, to e: EntityDescription,
                                   _ rules: BatchDeleteRules, in db: SQLiteConnection) throws -> [Int64: HistoryValueRecord] {
        guard recordsHistory, let index = other.propertyIndexByName[name], other.historyValueIndices.contains(index) else { return [:] }
        let rows = try currentValues(of: other, properties: [index], filter: """
            WHERE \(rules.referencing(e, from: other, column: SQLSchema.quote(name), alias: "t0."))
            """, in: db)
        return rows.compactMapValues { row in row[index].map { HistoryValueRecord(index: index, old: $0, new: .null) } }
    }
}
