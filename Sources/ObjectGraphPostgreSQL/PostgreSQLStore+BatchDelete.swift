import Foundation
import ObjectGraph

/// Batch deletes on PostgreSQL with the model's delete rules applied in SQL, by the same
/// statements as SQLite's (``BatchDeleteRules``).
///
/// The keys to delete are gathered in a temporary table (`_og_batch`, the writer session's
/// own, emptied at every commit) and grown to a fixed point along cascade rules; deny rules
/// and required inverses are checked against rows outside it, references are cleared, link
/// rows removed, and the rows deleted. The statements that clear and delete return the keys
/// and the old values history keeps (`RETURNING`). Everything runs in one transaction: a
/// refusal leaves the database as it was.
extension PostgreSQLStore {
    package func batchDelete(_ entity: EntityDescription, _ selection: BatchDeleteSelection,
                             author: String?, contextName: String?) throws -> BatchOutcome {
        let rules = BatchDeleteRules(model: model, keyTable: "_og_batch", dialect: dialect, recordsHistory: recordsHistory)
        if case .condition(let condition) = selection, !rules.needsRules(entity) {
            return try batchWrite { db in try directDelete(entity, where: condition, author: author, contextName: contextName, in: db) }
        }
        return try batchWrite { db in
            try db.execute("""
                CREATE TEMP TABLE IF NOT EXISTS _og_batch (entity text NOT NULL, pk bigint NOT NULL, PRIMARY KEY (entity, pk))
                ON COMMIT DELETE ROWS
                """)
            try db.run(rules.selection(selection, of: entity))
            try cascade(rules, in: db)
            let entities = try batchEntities(in: db)
            for e in entities {
                for (count, refusal) in rules.checks(for: e) {
                    let found = Int(try db.query(count).int(0, 0))
                    if found > 0 { throw refusal(found) }
                }
            }
            var outcome = BatchOutcome()
            var history = recordsHistory ? PostgreSQLBatchHistoryWriter(store: self, db: db, author: author,
                                                                       contextName: contextName) : nil
            for e in entities {
                // Cleared references first (those rows stay, with a new version).
                try clearReferences(to: e, rules, outcome: &outcome, history: &history, in: db)
                for statement in rules.linkDeletions(of: e) { try db.run(statement) }
                try deleteRows(of: e, rules, outcome: &outcome, history: &history, in: db)
            }
            // The key table is emptied by the commit; a rollback takes its rows back too.
            outcome.historyToken = try history?.finish()
            return outcome
        }
    }

    /// The common case (rows nothing else depends on): one DELETE, no key table.
    private func directDelete(_ entity: EntityDescription, where condition: SQLFragment?, author: String?,
                              contextName: String?, in db: PostgreSQLConnection) throws -> BatchOutcome {
        let table = SQLSchema.table(entity)
        let filter: SQLFragment = condition.map { " WHERE _pk IN (SELECT t0._pk FROM \(raw: table) t0 WHERE \($0))" } ?? ""
        let result = try db.query("DELETE FROM \(raw: table)\(filter) RETURNING _pk")
        var outcome = BatchOutcome()
        let keys = (0..<result.rowCount).map { result.int($0, 0) }
        outcome.deleted = keys.map { objectID(entity.name, primaryKey: $0) }
        let records = keys.map { HistoryRecord.make(entity: entity.name, primaryKey: $0, kind: .delete) }
        outcome.historyToken = try recordBatchHistory(records, author: author, contextName: contextName, in: db)
        return outcome
    }

    /// Adds the destinations of cascade rules until nothing new is added.
    private func cascade(_ rules: BatchDeleteRules, in db: PostgreSQLConnection) throws {
        var added = true
        while added {
            added = false
            for e in try batchEntities(in: db) {
                for statement in rules.cascades(from: e) where try db.run(statement) > 0 { added = true }
            }
        }
    }

    private func batchEntities(in db: PostgreSQLConnection) throws -> [EntityDescription] {
        let result = try db.query("SELECT DISTINCT entity FROM _og_batch ORDER BY entity")
        return (0..<result.rowCount).compactMap { result.text($0, 0).flatMap(model.entity(named:)) }
    }

    /// Clears the to-one references of rows outside the batch to the batch's rows of `e`,
    /// returning each row's old destination for history.
    private func clearReferences(to e: EntityDescription, _ rules: BatchDeleteRules, outcome: inout BatchOutcome,
                                 history: inout PostgreSQLBatchHistoryWriter?, in db: PostgreSQLConnection) throws {
        for (other, column, name) in rules.nullifiedReferences(to: e) {
            guard let index = other.propertyIndexByName[name] else { continue }
            let result = try db.query("""
                UPDATE \(raw: SQLSchema.table(other)) u SET \(raw: column) = NULL, _version = u._version + 1
                FROM (SELECT t0._pk, t0.\(raw: column) FROM \(raw: SQLSchema.table(other)) t0
                      WHERE \(rules.referencing(e, from: other, column: column, alias: "t0.")) FOR UPDATE OF t0) o
                WHERE u._pk = o._pk RETURNING u._pk, o.\(raw: column)
                """)
            let recordsValue = other.historyValueIndices.contains(index)
            for row in 0..<result.rowCount {
                let pk = result.int(row, 0)
                outcome.updated.append(objectID(other.name, primaryKey: pk))
                let old = storedValue(result, row, 1, property: other.properties[index])
                try history?.append(.make(entity: other.name, primaryKey: pk, kind: .update, updated: [name],
                                          values: recordsValue ? [.make(index: index, old: old, new: .null)] : []))
            }
        }
    }

    /// Deletes the batch's rows of `e`, returning the values their tombstones and history keep.
    private func deleteRows(of e: EntityDescription, _ rules: BatchDeleteRules, outcome: inout BatchOutcome,
                            history: inout PostgreSQLBatchHistoryWriter?, in db: PostgreSQLConnection) throws {
        let kept = history == nil ? [] : rules.recordedOnDeletion(e)
        let columns = kept.map { ", \(SQLSchema.quote(e.properties[$0].name))" }.joined()
        let result = try db.query("DELETE FROM \(raw: SQLSchema.table(e)) WHERE _pk IN \(rules.keys(of: e)) RETURNING _pk\(raw: columns)")
        for row in 0..<result.rowCount {
            let pk = result.int(row, 0)
            outcome.deleted.append(objectID(e.name, primaryKey: pk))
            guard history != nil else { continue }
            var values = [StoredValue](repeating: .unloaded, count: e.properties.count)
            for (n, index) in kept.enumerated() { values[index] = storedValue(result, row, n + 1, property: e.properties[index]) }
            try history?.append(.make(entity: e.name, primaryKey: pk, kind: .delete,
                                      tombstone: HistoryRecord.tombstone(of: e, row: values),
                                      values: kept.isEmpty ? [] : HistoryRecord.values(of: e, old: values, new: nil)))
        }
    }
}
