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
        if case .condition(let condition) = selection, !needsRules(entity) {
            return try batchWrite { db in try directDelete(entity, where: condition, author: author, contextName: contextName, in: db) }
        }
        return try batchWrite { db in
            try db.execute("CREATE TEMP TABLE IF NOT EXISTS _og_batch (entity TEXT NOT NULL, pk INTEGER NOT NULL, PRIMARY KEY (entity, pk)) WITHOUT ROWID")
            try db.execute("DELETE FROM temp._og_batch")
            defer { try? db.execute("DELETE FROM temp._og_batch") }
            try select(selection, of: entity, in: db)
            try cascade(in: db)
            let entities = try batchEntities(in: db)
            try checkRules(for: entities, in: db)

            var outcome = BatchOutcome()
            var history = recordsHistory ? try HistoryWriter(store: self, author: author, contextName: contextName, db: db) : nil
            for e in entities {
                // Nullified references first (those rows stay, with a new version).
                try nullifyReferences(to: e, outcome: &outcome, history: &history, in: db)
                try removeLinks(of: e, in: db)
                try deleteRows(of: e, outcome: &outcome, history: &history, in: db)
            }
            outcome.historyToken = history?.finish()
            return outcome
        }
    }

    /// Puts the keys of the request's rows in `temp._og_batch`.
    private func select(_ selection: BatchDeleteSelection, of entity: EntityDescription, in db: SQLiteConnection) throws {
        let table = SQLSchema.table(entity)
        switch selection {
        case .condition(let condition):
            let filter: SQLFragment = condition.map { " WHERE \($0)" } ?? ""
            try db.run("INSERT INTO temp._og_batch (entity, pk) SELECT \(.string(entity.name)), t0._pk FROM \(raw: table) t0\(filter)")
        case .keys(let keys):
            for key in keys {
                try db.run(dialect.insertIgnoringDuplicates(into: "temp._og_batch", """
                    (entity, pk) SELECT \(.string(entity.name)), _pk FROM \(raw: table) WHERE _pk = \(.int(key))
                    """))
            }
        }
    }

    /// Clears the to-one references of rows outside the batch to the batch's rows of `e`.
    private func nullifyReferences(to e: EntityDescription, outcome: inout BatchOutcome, history: inout HistoryWriter?,
                                   in db: SQLiteConnection) throws {
        for (other, column, relationshipName) in try nullifiedReferences(to: e) {
            let cleared = try clearedReferences(other, relationship: relationshipName, to: e, in: db)
            let update = try db.prepared("""
                UPDATE \(raw: SQLSchema.table(other)) SET \(raw: column) = NULL, _version = _version + 1
                WHERE \(raw: column) IN (SELECT pk FROM temp._og_batch WHERE entity = \(.string(e.name)))
                  AND _pk NOT IN (SELECT pk FROM temp._og_batch WHERE entity = \(.string(other.name))) RETURNING _pk
                """)
            while try update.step() {
                let pk = update.int(at: 0)
                outcome.updated.append(ObjectID(entityName: other.name, key: .permanent(store: identifier, primaryKey: pk)))
                try history?.append(HistoryRecord(entity: other.name, primaryKey: pk, kind: .update, updated: [relationshipName],
                                                  values: cleared[pk].map { [$0] } ?? []))
            }
            update.reset()
        }
    }

    /// Deletes the batch's rows of `e`, their tombstones and old values read first.
    private func deleteRows(of e: EntityDescription, outcome: inout BatchOutcome, history: inout HistoryWriter?,
                            in db: SQLiteConnection) throws {
        let oldRows = history == nil ? [:] : try batchOldValues(e, in: db)
        let delete = try db.prepared("""
            DELETE FROM \(raw: SQLSchema.table(e)) WHERE _pk IN (SELECT pk FROM temp._og_batch WHERE entity = \(.string(e.name)))
            RETURNING _pk
            """)
        var keys: [Int64] = []
        while try delete.step() { keys.append(delete.int(at: 0)) }
        delete.reset()
        for pk in keys {
            outcome.deleted.append(ObjectID(entityName: e.name, key: .permanent(store: identifier, primaryKey: pk)))
            guard history != nil else { continue }
            let old = oldRows[pk] ?? [:]
            let row = e.properties.indices.map { old[$0] ?? .unloaded }
            try history?.append(HistoryRecord(entity: e.name, primaryKey: pk, kind: .delete,
                                              tombstone: HistoryRecord.tombstone(of: e, row: row),
                                              values: old.isEmpty ? [] : HistoryRecord.values(of: e, old: row, new: nil)))
        }
    }

    /// Whether deleting rows of `entity` involves other rows: cascades, denials, references
    /// to clear, link rows, or tombstones and old values to keep.
    private func needsRules(_ entity: EntityDescription) -> Bool {
        if recordsHistory && entity.attributes.contains(where: \.isPreservedInHistoryOnDeletion) { return true }
        if recordsHistory && !entity.historyValueIndices.isEmpty { return true }
        for r in entity.relationships {
            if r.isToMany || r.deleteRule == .cascade || r.deleteRule == .deny { return true }
            if let inverse = model.entity(named: r.destinationEntityName)?.relationship(named: r.inverseName),
               !inverse.isToMany { return true }
        }
        for other in model.entities {
            if other.relationships.contains(where: { $0.cardinality == .orderedToMany && $0.destinationEntityName == entity.name }) {
                return true
            }
        }
        return false
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
        outcome.deleted = keys.map { ObjectID(entityName: entity.name, key: .permanent(store: identifier, primaryKey: $0)) }
        if recordsHistory && !keys.isEmpty {
            let records = keys.map { HistoryRecord(entity: entity.name, primaryKey: $0, kind: .delete) }
            outcome.historyToken = try recordHistory(records, author: author, contextName: contextName, in: db)
        }
        return outcome
    }

    /// Adds the destinations of cascade rules until nothing new is added.
    private func cascade(in db: SQLiteConnection) throws {
        var added = true
        while added {
            added = false
            for e in try batchEntities(in: db) {
                for r in e.relationships where r.deleteRule == .cascade {
                    guard let destination = model.entity(named: r.destinationEntityName) else { continue }
                    try db.run(dialect.insertIgnoringDuplicates(
                        into: "temp._og_batch", "(entity, pk) \(destinations(of: r, in: e, destination: destination))"))
                    if db.changes > 0 { added = true }
                }
            }
        }
    }

    /// `SELECT <destination's name> AS entity, <destination pk> AS pk ... WHERE <source in the batch>`.
    private func destinations(of r: RelationshipDescription, in e: EntityDescription,
                              destination: EntityDescription) -> SQLFragment {
        let name = StoredValue.string(destination.name)
        let batch: SQLFragment = "(SELECT pk FROM temp._og_batch WHERE entity = \(.string(e.name)))"
        switch SQLSchema.mapping(of: r, in: e, model: model) {
        case .foreignKey(let column):
            return """
                SELECT \(name) AS entity, s.\(raw: column) AS pk FROM \(raw: SQLSchema.table(e)) s
                WHERE s._pk IN \(batch) AND s.\(raw: column) IS NOT NULL
                """
        case .inverseForeignKey(let destinationTable, let column):
            return "SELECT \(name) AS entity, d._pk AS pk FROM \(raw: destinationTable) d WHERE d.\(raw: column) IN \(batch)"
        case .joinTable(let join, let owner, let member):
            return "SELECT \(name) AS entity, j.\(raw: member) AS pk FROM \(raw: join) j WHERE j.\(raw: owner) IN \(batch)"
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
    private func checkRules(for entities: [EntityDescription], in db: SQLiteConnection) throws {
        for e in entities {
            for r in e.relationships {
                guard let destination = model.entity(named: r.destinationEntityName) else { continue }
                let inverse = destination.relationship(named: r.inverseName)
                let nullifiesRequired = r.deleteRule == .nullify && inverse.map { !$0.isToMany && $0.isRequired } == true
                guard r.deleteRule == .deny || nullifiesRequired else { continue }
                let statement = try db.prepared("""
                    SELECT COUNT(*) FROM (\(destinations(of: r, in: e, destination: destination))) x
                    WHERE x.pk NOT IN (SELECT pk FROM temp._og_batch WHERE entity = x.entity)
                    """)
                _ = try statement.step()
                let count = Int(statement.int(at: 0))
                statement.reset()
                guard count > 0 else { continue }
                if r.deleteRule == .deny {
                    throw BatchError.deleteDenied(entity: e.name, relationship: r.name, count: count)
                }
                throw BatchError.requiredRelationshipWouldBeEmpty(entity: destination.name, relationship: r.inverseName, count: count)
            }
        }
    }

    /// Foreign-key columns of other rows pointing at `e` that a nullify (or cascade, for rows
    /// outside the batch there are none) rule clears: (entity, column, relationship name).
    private func nullifiedReferences(to e: EntityDescription) throws -> [(EntityDescription, String, String)] {
        var result: [(EntityDescription, String, String)] = []
        for r in e.relationships where r.deleteRule != .noAction {
            guard let destination = model.entity(named: r.destinationEntityName),
                  let inverse = destination.relationship(named: r.inverseName), !inverse.isToMany else { continue }
            result.append((destination, SQLSchema.quote(inverse.name), inverse.name))
        }
        return result
    }

    /// Join-table and order-table rows of the batch's objects of `e`, on both sides.
    private func removeLinks(of e: EntityDescription, in db: SQLiteConnection) throws {
        let batch: SQLFragment = "(SELECT pk FROM temp._og_batch WHERE entity = \(.string(e.name)))"
        for r in e.relationships where r.isToMany {
            if case .joinTable(let join, let owner, _) = SQLSchema.mapping(of: r, in: e, model: model) {
                try db.run("DELETE FROM \(raw: join) WHERE \(raw: owner) IN \(batch)")
            }
            if r.cardinality == .orderedToMany {
                try db.run("DELETE FROM \(raw: SQLSchema.orderTableName(entity: e.name, relationship: r.name)) WHERE owner IN \(batch)")
            }
        }
        // Membership in other objects' ordered relationships.
        for other in model.entities {
            for r in other.relationships where r.cardinality == .orderedToMany && r.destinationEntityName == e.name {
                try db.run("DELETE FROM \(raw: SQLSchema.orderTableName(entity: other.name, relationship: r.name)) WHERE member IN \(batch)")
            }
        }
    }

    /// The values history keeps of the batch's rows of `e` (tombstones and recorded old
    /// values), read before the rows go, by primary key and property index.
    private func batchOldValues(_ e: EntityDescription, in db: SQLiteConnection) throws -> [Int64: [Int: StoredValue]] {
        let preserved = e.attributeIndices.filter {
            if case .attribute(let a) = e.properties[$0] { return a.isPreservedInHistoryOnDeletion } else { return false }
        }
        let indices = Array(Set(preserved + e.historyValueIndices)).sorted()
        return try currentValues(of: e, properties: indices,
                                 filter: "WHERE t0._pk IN (SELECT pk FROM temp._og_batch WHERE entity = \(.string(e.name)))",
                                 in: db)
    }

    /// The old → nil values of a to-one relationship of `other` that records values, for the
    /// rows outside the batch whose destination in `e` the batch deletes, by primary key.
    private func clearedReferences(_ other: EntityDescription, relationship name: String, to e: EntityDescription,
                                   in db: SQLiteConnection) throws -> [Int64: HistoryValueRecord] {
        guard recordsHistory, let index = other.propertyIndexByName[name], other.historyValueIndices.contains(index) else { return [:] }
        let column = "t0.\(SQLSchema.quote(name))"
        let rows = try currentValues(of: other, properties: [index], filter: """
            WHERE \(raw: column) IN (SELECT pk FROM temp._og_batch WHERE entity = \(.string(e.name)))
              AND t0._pk NOT IN (SELECT pk FROM temp._og_batch WHERE entity = \(.string(other.name)))
            """, in: db)
        return rows.compactMapValues { row in row[index].map { HistoryValueRecord(index: index, old: $0, new: .null) } }
    }
}
