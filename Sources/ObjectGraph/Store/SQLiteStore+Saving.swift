import CSQLite
import Foundation

extension SQLiteStore {
    /// Reserves `count` primary keys of `entity` that no other coordinator or process will use.
    func reservePrimaryKeys(_ entity: String, count: Int, in db: SQLiteConnection) throws -> ClosedRange<Int64>? {
        guard count > 0 else { return nil }
        let statement = try db.statement("UPDATE _og_sequence SET max = max + ? WHERE entity = ? RETURNING max")
        defer { statement.reset() }
        statement.bind([.int(Int64(count)), .string(entity)])
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
    /// any error, conflicts and uniqueness violations included).
    func save(_ request: SaveRequest) throws -> SaveResult {
        try pool.write { db in
            do {
                return try db.transaction { try write(request, in: db) }
            } catch let error as StoreError {
                throw Self.translate(error, model: model)
            }
        }
    }

    private func write(_ request: SaveRequest, in db: SQLiteConnection) throws -> SaveResult {
        var result = SaveResult()
        var history: [HistoryRecord] = []
        // Built only when the store records history (changed property names cost a pass).
        func record(_ make: @autoclosure () -> HistoryRecord) { if recordsHistory { history.append(make()) } }
        // Permanent keys for the inserts that do not have one yet.
        let needKeys = Dictionary(grouping: request.inserts.filter { $0.id.isTemporaryID }, by: \.entity)
        for (entity, inserts) in needKeys {
            guard let range = try reservePrimaryKeys(entity, count: inserts.count, in: db) else { continue }
            for (insert, pk) in zip(inserts, range) {
                result.permanentIDs[insert.id] = ObjectID(entityName: entity, key: .permanent(store: identifier, primaryKey: pk))
            }
        }
        // Upserts: under the trump policies, an insert whose unique key already exists in the
        // store becomes that row (ours updates it, or the store's row is adopted as is).
        var upserts: [ObjectID: RowSnapshot] = [:]
        let trumps: Set<MergePolicy> = [.mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback]
        if trumps.contains(request.mergePolicy) {
            for insert in request.inserts {
                guard let entity = model.entity(named: insert.entity), !entity.uniquenessIndices.isEmpty,
                      let (pk, row) = try existingRow(matchingUniqueKeysOf: insert.values, entity: entity, in: db)
                else { continue }
                result.permanentIDs[insert.id] = ObjectID(entityName: insert.entity, key: .permanent(store: identifier, primaryKey: pk))
                upserts[insert.id] = row
            }
        }
        func permanent(_ id: ObjectID) throws -> ObjectID {
            if !id.isTemporaryID { return id }
            if let p = result.permanentIDs[id] ?? request.resolveTemporaryID(id) { return p }
            throw SaveError.temporaryIDOutsideHierarchy(id)
        }
        func resolved(_ values: [StoredValue]) throws -> [StoredValue] {
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

        for insert in request.inserts {
            guard let entity = model.entity(named: insert.entity) else { continue }
            let table = table(for: entity)
            let id = try permanent(insert.id)
            let values = try resolved(insert.values)
            if let existing = upserts[insert.id], let pk = id.primaryKey {
                if request.mergePolicy == .mergeByPropertyStoreTrump || request.mergePolicy == .rollback {
                    result.rolledBack[id] = existing      // the store's row wins; we adopt it
                } else {
                    guard try runUpdate(table, pk: pk, values: values, expected: existing.version, in: db) else {
                        throw StoreError.busy(path: path, timeout: busyTimeout)
                    }
                    result.written[id] = RowSnapshot(values: values.map { Self.cacheable($0) }, version: existing.version + 1)
                    record(HistoryRecord(entity: entity.name, primaryKey: pk, kind: .update,
                                                 updated: Self.changedProperties(values, from: existing.values, entity: entity)))
                }
                continue
            }
            let statement = try db.statement(table.insertSQL)
            statement.bind(.int(id.primaryKey ?? 0), at: 1)
            for (n, column) in table.columns.enumerated() { statement.bind(values[column.index], at: Int32(n + 2)) }
            try statement.run()
            try writeToMany(entity: entity, ownerKey: id.primaryKey ?? 0, values: values, base: nil, in: db)
            result.written[id] = RowSnapshot(values: values.map { Self.cacheable($0) }, version: 1)
            record(HistoryRecord(entity: entity.name, primaryKey: id.primaryKey ?? 0, kind: .insert))
        }

        var conflicts: [MergeConflict] = []
        for update in request.updates {
            guard let entity = model.entity(named: update.entity), let pk = update.id.primaryKey else { continue }
            let table = table(for: entity)
            var values = try resolved(update.values)
            var expected = update.expectedVersion
            let changedColumns = table.columns.indices.filter { n in
                let i = table.columns[n].index
                return i >= update.base.count || !ManagedObject.sameValue(update.values[i], update.base[i])
            }
            if try !runUpdate(table, pk: pk, values: values, expected: expected, only: changedColumns, in: db) {
                // Conflict: the row changed or vanished since the context read it.
                let theirs = try currentRow(pk: pk, table: table, in: db)
                guard let theirs else {
                    if request.mergePolicy == .error {
                        conflicts.append(MergeConflict(objectID: update.id, deletedElsewhere: true,
                                                       expectedVersion: expected, foundVersion: nil, properties: []))
                    } else {
                        result.rolledBack[update.id] = .some(nil)
                    }
                    continue
                }
                switch request.mergePolicy {
                case .error:
                    conflicts.append(Self.conflict(update, theirs: theirs, entity: entity))
                    continue
                case .rollback:
                    result.rolledBack[update.id] = theirs
                    continue
                case .overwrite:
                    break
                case .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump:
                    var merged = theirs.values
                    for i in values.indices where i < merged.count && i < update.base.count {
                        let oursChanged = !ManagedObject.sameValue(values[i], update.base[i])
                        let theirsChanged = !ManagedObject.sameValue(merged[i], update.base[i])
                        if case .unloaded = values[i] { continue }
                        if oursChanged && (request.mergePolicy == .mergeByPropertyObjectTrump || !theirsChanged) {
                            merged[i] = values[i]
                        }
                    }
                    values = merged
                }
                expected = theirs.version
                guard try runUpdate(table, pk: pk, values: values, expected: expected, in: db) else {
                    throw StoreError.busy(path: path, timeout: busyTimeout)
                }
            }
            try writeToMany(entity: entity, ownerKey: pk, values: values, base: update.base, in: db)
            result.written[update.id] = RowSnapshot(values: values.map { Self.cacheable($0) }, version: expected + 1)
            record(HistoryRecord(entity: entity.name, primaryKey: pk, kind: .update,
                                         updated: Self.changedProperties(values, from: update.base, entity: entity)))
        }

        for delete in request.deletes {
            guard let entity = model.entity(named: delete.entity), let pk = delete.id.primaryKey else { continue }
            let table = table(for: entity)
            let tombstone = recordsHistory ? try tombstoneValues(entity: entity, primaryKey: pk, in: db) : nil
            let statement = try db.statement(table.deleteSQL)
            statement.bind([.int(pk), .int(delete.expectedVersion)])
            try statement.run()
            if db.changes == 0 {
                let theirs = try currentRow(pk: pk, table: table, in: db)
                if let theirs, request.mergePolicy == .error {
                    conflicts.append(MergeConflict(objectID: delete.id, deletedElsewhere: false,
                                                   expectedVersion: delete.expectedVersion,
                                                   foundVersion: theirs.version, properties: []))
                    continue
                }
                if theirs != nil {
                    let force = try db.statement("DELETE FROM \(table.table) WHERE _pk = ?")
                    force.bind(.int(pk), at: 1)
                    try force.run()
                }
            }
            try deleteLinks(entity: entity, key: pk, in: db)
            result.deleted.insert(delete.id)
            record(HistoryRecord(entity: entity.name, primaryKey: pk, kind: .delete, tombstone: tombstone))
        }

        if !conflicts.isEmpty { throw SaveError.mergeConflict(conflicts) }
        if recordsHistory && !history.isEmpty {
            result.historyToken = try recordHistory(history, author: request.author, contextName: request.contextName, in: db)
        }
        return result
    }

    /// The row whose values of some uniqueness constraint equal `values`', if any.
    private func existingRow(matchingUniqueKeysOf values: [StoredValue], entity: EntityDescription,
                             in db: SQLiteConnection) throws -> (Int64, RowSnapshot)? {
        let table = table(for: entity)
        for group in entity.uniquenessIndices {
            let key = group.map { values[$0] }
            if key.contains(where: \.isNull) { continue }
            let condition = group.map { "t0.\(SQLSchema.quote(entity.properties[$0].name)) = ?" }.joined(separator: " AND ")
            let statement = try db.statement("SELECT \(table.selectList) FROM \(table.table) t0 WHERE \(condition)")
            defer { statement.reset() }
            statement.bind(key)
            if try statement.step() {
                let (id, row) = table.snapshot(from: statement, store: identifier)
                return (id.primaryKey ?? 0, row)
            }
        }
        return nil
    }

    /// Writes the row if its version is still `expected`: every column, or only `columns`
    /// (positions in `table.columns`), the ones the save changed.
    private func runUpdate(_ table: EntityTable, pk: Int64, values: [StoredValue], expected: Int64,
                           only columns: [Int]? = nil, in db: SQLiteConnection) throws -> Bool {
        let statement: SQLiteStatement
        let written = columns ?? Array(table.columns.indices)
        if columns == nil {
            statement = try db.statement(table.updateSQL)
        } else {
            let assignments = written.map { ", \(table.columns[$0].name) = ?" }.joined()
            statement = try db.statement("UPDATE \(table.table) SET _version = _version + 1\(assignments) WHERE _pk = ? AND _version = ?")
        }
        for (n, position) in written.enumerated() {
            statement.bind(values[table.columns[position].index], at: Int32(n + 1))
        }
        let count = Int32(written.count)
        statement.bind(.int(pk), at: count + 1)
        statement.bind(.int(expected), at: count + 2)
        try statement.run()
        return db.changes > 0
    }

    private func currentRow(pk: Int64, table: EntityTable, in db: SQLiteConnection) throws -> RowSnapshot? {
        let statement = try db.statement("SELECT \(table.selectList) FROM \(table.table) t0 WHERE t0._pk = ?")
        defer { statement.reset() }
        statement.bind(.int(pk), at: 1)
        return try statement.step() ? table.snapshot(from: statement, store: identifier).1 : nil
    }

    /// Many-to-many links and ordered positions, written from the values that changed.
    private func writeToMany(entity: EntityDescription, ownerKey: Int64, values: [StoredValue],
                             base: [StoredValue]?, in db: SQLiteConnection) throws {
        for index in entity.relationshipIndices {
            guard let rel = entity.relationshipDescription(at: index), rel.isToMany,
                  case .references(let ids) = values[index] else { continue }
            let old: [ObjectID]? = base.flatMap { b in
                if index < b.count, case .references(let o) = b[index] { return o } else { return nil }
            }
            if let old, old == ids { continue }
            let keys = ids.compactMap(\.primaryKey)
            if rel.cardinality == .orderedToMany {
                let order = SQLSchema.orderTableName(entity: entity.name, relationship: rel.name)
                let clear = try db.statement("DELETE FROM \(order) WHERE owner = ?")
                clear.bind(.int(ownerKey), at: 1)
                try clear.run()
                let add = try db.statement("INSERT INTO \(order) (owner, member, position) VALUES (?, ?, ?)")
                for (position, key) in keys.enumerated() {
                    add.reset()
                    add.bind([.int(ownerKey), .int(key), .int(Int64(position))])
                    try add.run()
                }
            }
            if case .joinTable(let join, let owner, let member) = SQLSchema.mapping(of: rel, in: entity, model: model),
               owner == "\"a\"" {
                // Only the side owning column `a` writes, so a link is written once.
                let oldKeys = Set((old ?? []).compactMap(\.primaryKey))
                let newKeys = Set(keys)
                let remove = try db.statement("DELETE FROM \(join) WHERE \(owner) = ? AND \(member) = ?")
                for key in oldKeys.subtracting(newKeys) {
                    remove.reset()
                    remove.bind([.int(ownerKey), .int(key)])
                    try remove.run()
                }
                let add = try db.statement("INSERT OR IGNORE INTO \(join) (\(owner), \(member)) VALUES (?, ?)")
                for key in newKeys.subtracting(oldKeys) {
                    add.reset()
                    add.bind([.int(ownerKey), .int(key)])
                    try add.run()
                }
            }
        }
    }

    private func deleteLinks(entity: EntityDescription, key: Int64, in db: SQLiteConnection) throws {
        for rel in entity.relationships where rel.isToMany {
            if case .joinTable(let join, let owner, _) = SQLSchema.mapping(of: rel, in: entity, model: model) {
                let statement = try db.statement("DELETE FROM \(join) WHERE \(owner) = ?")
                statement.bind(.int(key), at: 1)
                try statement.run()
            }
            if rel.cardinality == .orderedToMany {
                let order = SQLSchema.orderTableName(entity: entity.name, relationship: rel.name)
                let statement = try db.statement("DELETE FROM \(order) WHERE owner = ?")
                statement.bind(.int(key), at: 1)
                try statement.run()
            }
        }
    }

    /// Row cache snapshots keep to-many relationships unloaded: their truth is in other rows.
    static func cacheable(_ value: StoredValue) -> StoredValue {
        if case .references = value { return .unloaded }
        return value
    }

    static func conflict(_ update: SaveRequest.Update, theirs: RowSnapshot, entity: EntityDescription) -> MergeConflict {
        var properties: [MergeConflict.PropertyConflict] = []
        for (i, property) in entity.properties.enumerated() where i < update.values.count && i < theirs.values.count {
            if case .relationship(let r) = property, r.isToMany { continue }
            let ours = update.values[i], base = i < update.base.count ? update.base[i] : .null, their = theirs.values[i]
            if ours != base && their != base && ours != their {
                properties.append(.init(property: property.name, base: base.displayString,
                                        ours: ours.displayString, theirs: their.displayString))
            }
        }
        return MergeConflict(objectID: update.id, deletedElsewhere: false, expectedVersion: update.expectedVersion,
                             foundVersion: theirs.version, properties: properties)
    }

    /// A UNIQUE constraint failure becomes a uniqueness violation naming the properties.
    static func translate(_ error: StoreError, model: ManagedObjectModel) -> Error {
        guard case .sqlite(let code, let message, _) = error, code == 2067 /* SQLITE_CONSTRAINT_UNIQUE */ else {
            return error
        }
        // "UNIQUE constraint failed: Client.email, Client.name"
        let detail = message.components(separatedBy: ": ").last ?? message
        let pairs = detail.components(separatedBy: ", ").map { $0.components(separatedBy: ".") }
        let entity = pairs.first?.first ?? "object"
        let properties = pairs.compactMap { $0.count == 2 ? $0[1] : nil }
        return SaveError.uniquenessViolation(entity: entity, properties: properties, message: message)
    }
}
