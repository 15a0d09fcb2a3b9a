import Foundation

/// One root save written to a store, inside the transaction the store opened for it: the
/// inserts, then the updates, then the deletes, then the history record. Any error leaves
/// the transaction to be rolled back: all of the save, or nothing. What to write is decided
/// here, for every store; the store's ``SaveWriter`` runs the statements.
///
/// History records the values of properties that record them as they reach the file: old
/// values are the row the write replaced (the context's base when the row was at the version
/// it read, the file's row when a merge policy wrote over a newer one), so a chain of nested
/// saves records once, what the root wrote.
///
/// Optimistic locking: an update or delete names the row version its context read
/// (`UPDATE … WHERE _pk = ? AND _version = ?`); a row found at another version is a
/// conflict, resolved by the request's merge policy (``RowMerge``).
package struct SaveTransaction<Writer: SaveWriter> {
    let writer: Writer
    let request: SaveRequest
    /// The store's number in ``ObjectID``s, looked up once per save.
    private let storeCode: UInt32
    private(set) var result = SaveResult()
    private var history: [HistoryRecord] = []
    private var conflicts: [MergeConflict] = []
    /// Inserts that became an existing row (an upsert under a trump policy): the row.
    private var upserts: [ObjectID: RowSnapshot] = [:]
    /// Updates the writer wrote ahead of the update loop (``writeUpdatesAhead()``), with the
    /// values it wrote (resolved once).
    private var writtenAhead: [ObjectID: [StoredValue]] = [:]

    package init(writer: Writer, request: SaveRequest) {
        self.writer = writer
        self.request = request
        storeCode = ObjectID.storeCode(for: writer.storeIdentifier)
    }

    /// Writes the whole request.
    /// - Throws: ``SaveError/mergeConflict(_:)`` (every conflict of the save),
    ///   ``SaveError/uniquenessViolation(_:)``, ``StoreError``.
    package mutating func run() throws -> SaveResult {
        result.written.reserveCapacity(request.inserts.count + request.updates.count)
        try assignPermanentKeys()
        try findUpserts()
        try writeInserts()
        try writeUpdatesAhead()
        for update in request.updates { try write(update) }
        for delete in request.deletes { try write(delete) }
        if !conflicts.isEmpty { throw SaveError.mergeConflict(conflicts) }
        if writer.recordsHistory && !history.isEmpty {
            result.historyToken = try writer.recordHistory(history, author: request.author,
                                                           contextName: request.contextName)
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
        var needKeys = EntityRuns<SaveRequest.Insert>()
        for insert in temporary { needKeys.append(insert, named: insert.entity) }
        result.permanentIDs.reserveCapacity(temporary.count)
        for (name, inserts) in needKeys.groups {
            guard let entity = writer.model.entity(named: name) else { continue }
            for (insert, pk) in zip(inserts, try writer.reserveKeys(entity, count: inserts.count)) {
                result.permanentIDs[insert.id] = ObjectID(entityCode: entity.code, storeCode: storeCode, value: pk)
            }
        }
    }

    /// Under the trump policies, an insert whose unique key already exists in the store
    /// becomes that row: ours updates it, or the store's row is adopted as it is.
    private mutating func findUpserts() throws {
        guard RowMerge.resolveInsert(policy: request.mergePolicy) != .refuse else { return }
        for insert in request.inserts {
            guard let entity = writer.model.entity(named: insert.entity), !entity.uniquenessIndices.isEmpty,
                  let (pk, row) = try writer.existingRow(matchingUniqueKeysOf: insert.values, entity: entity)
            else { continue }
            result.permanentIDs[insert.id] = objectID(insert.entity, primaryKey: pk)
            upserts[insert.id] = row
        }
    }

    private func objectID(_ entity: String, primaryKey: Int64) -> ObjectID {
        ObjectID(entityCode: writer.model.entity(named: entity)?.code ?? ObjectID.entityCode(for: entity),
                 storeCode: storeCode, value: primaryKey)
    }

    private func permanent(_ id: ObjectID) throws -> ObjectID {
        if !id.isTemporaryID { return id }
        if let p = result.permanentIDs[id] ?? request.resolveTemporaryID(id) { return p }
        throw SaveError.temporaryIDOutsideHierarchy(id)
    }

    /// The values with every reference made permanent. Only a temporary reference is
    /// written: writing any would copy the array, and an update's references, or an insert's
    /// to existing rows, are permanent already.
    private func resolved(_ values: [StoredValue]) throws -> [StoredValue] {
        var out = values
        for i in values.indices {
            switch values[i] {
            case .reference(let id) where id.isTemporaryID:
                out[i] = .reference(try permanent(id))
            case .references(let ids) where ids.contains(where: \.isTemporaryID):
                out[i] = .references(try ids.map(permanent))
            default: break
            }
        }
        return out
    }

    private mutating func record(_ make: @autoclosure () -> HistoryRecord) {
        if writer.recordsHistory { history.append(make()) }
    }

    // MARK: Inserts

    /// An insert that writes a new row (not an upsert onto an existing one).
    private struct NewRow {
        let id: ObjectID
        let entity: EntityDescription
        let row: SaveWriterRow
    }

    /// Writes the inserts: upserts one by one, new rows grouped by entity (``SaveWriter/insert(_:rows:)``,
    /// which a store may send many per statement), then their links and history in request order.
    private mutating func writeInserts() throws {
        var newRows: [NewRow] = []
        newRows.reserveCapacity(request.inserts.count)
        // The new rows' positions by entity, in the order entities first appear; the
        // entity of each group, looked up by name once.
        var groups = EntityRuns<Int>()
        var entities: [EntityDescription?] = []
        for insert in request.inserts {
            let group = groups.group(named: insert.entity)
            if group == entities.count { entities.append(writer.model.entity(named: insert.entity)) }
            guard let entity = entities[group] else { continue }
            let id = try permanent(insert.id)
            let values = try resolved(insert.values)
            guard let pk = id.primaryKey else { throw SaveError.temporaryIDOutsideHierarchy(id) }
            if let existing = upserts[insert.id] {
                try writeUpsert(id: id, pk: pk, values: values, existing: existing, entity: entity)
                continue
            }
            groups.append(newRows.count, toGroup: group)
            newRows.append(NewRow(id: id, entity: entity, row: SaveWriterRow(primaryKey: pk, values: values)))
        }
        for (group, (_, indices)) in groups.groups.enumerated() where !indices.isEmpty {
            guard let entity = entities[group] else { continue }
            guard let (refused, error) = try writer.insert(entity, rows: indices.map { newRows[$0].row }) else { continue }
            guard let index = indices.first(where: { newRows[$0].row.primaryKey == refused }) else { throw SaveError.storeFailure(error) }
            let clash = newRows[index]
            try uniquenessChecked(id: clash.id, pk: refused, values: clash.row.values, entity: entity) { () throws -> Void in throw error }
        }
        result.written.reserveCapacity(result.written.count + newRows.count)
        for new in newRows {
            let (entity, pk, values) = (new.entity, new.row.primaryKey, new.row.values)
            try writer.writeToMany(entity, primaryKey: pk, values: values, base: nil)
            result.written[new.id] = RowSnapshot(values: values, version: 1)
            record(HistoryRecord(entity: entity.name, primaryKey: pk, kind: .insert,
                                 values: HistoryRecord.values(of: entity, old: nil, new: values)))
        }
    }

    private mutating func writeUpsert(id: ObjectID, pk: Int64, values: [StoredValue], existing: RowSnapshot,
                                      entity: EntityDescription) throws {
        if RowMerge.resolveInsert(policy: request.mergePolicy) == .adoptTheirs {
            result.rolledBack[id] = existing      // the store's row wins; we adopt it
            return
        }
        guard try writer.update(entity, primaryKey: pk, values: values, expected: existing.version, only: nil) else {
            throw writer.busyError()
        }
        result.written[id] = RowSnapshot(values: values, version: existing.version + 1)
        record(HistoryRecord(entity: entity.name, primaryKey: pk, kind: .update,
                             updated: HistoryRecord.changedProperties(values, from: existing.values, entity: entity),
                             values: HistoryRecord.values(of: entity, old: existing.values, new: values)))
    }

    // MARK: Updates

    /// The stored columns (to-many relationships have none) that the save changed, ascending.
    private static func changedColumns(of update: SaveRequest.Update, entity: EntityDescription) -> [Int] {
        entity.properties.indices.filter { i in
            if case .relationship(let r) = entity.properties[i], r.isToMany { return false }
            return i >= update.base.count || PropertyMerge.changedByUs(base: update.base[i], ours: update.values[i])
        }
    }

    /// Which ``UpdateGroup`` an update belongs to.
    private struct UpdateGroupKey: Hashable {
        let entity: String
        let changed: [Int]
    }

    /// Updates of one entity that set the same columns.
    private struct UpdateGroup {
        let entity: EntityDescription
        let changed: [Int]
        var rows: [SaveWriterUpdate] = []
        var ids: [Int64: ObjectID] = [:]
    }

    /// Hands the writer the updates it may write together: those of one entity setting the
    /// same columns, none of a uniqueness constraint (a clash there must be named per row).
    /// What it wrote, the update loop does not write again; the rest it writes one by one.
    private mutating func writeUpdatesAhead() throws {
        guard writer.writesUpdatesTogether, request.updates.count > 1 else { return }
        // Groups are changed in place, in an array: a group copied out of a dictionary and
        // stored back copied its rows at every update (quadratic: 1 s for 10,000 updates).
        var groups: [UpdateGroup] = []
        var groupIndex: [UpdateGroupKey: Int] = [:]
        var resolvedValues: [ObjectID: [StoredValue]] = [:]
        for update in request.updates {
            guard let entity = writer.model.entity(named: update.entity), let pk = update.id.primaryKey else { continue }
            let changed = Self.changedColumns(of: update, entity: entity)
            guard !changed.isEmpty, entity.uniquenessPropertyIndices.allSatisfy({ Set($0).isDisjoint(with: changed) }) else { continue }
            let key = UpdateGroupKey(entity: entity.name, changed: changed)
            let index: Int
            if let existing = groupIndex[key] {
                index = existing
            } else {
                index = groups.count
                groupIndex[key] = index
                groups.append(UpdateGroup(entity: entity, changed: changed))
            }
            let values = try resolved(update.values)
            resolvedValues[update.id] = values
            groups[index].rows.append(SaveWriterUpdate(primaryKey: pk, values: values, expected: update.expectedVersion))
            groups[index].ids[pk] = update.id
        }
        for group in groups where group.rows.count > 1 {
            for pk in try writer.update(group.entity, rows: group.rows, only: group.changed) {
                if let id = group.ids[pk] { writtenAhead[id] = resolvedValues[id] }
            }
        }
    }

    private mutating func write(_ update: SaveRequest.Update) throws {
        guard let entity = writer.model.entity(named: update.entity), let pk = update.id.primaryKey else { return }
        let ahead = writtenAhead[update.id]
        let changed = ahead == nil ? Self.changedColumns(of: update, entity: entity) : nil
        if changed?.isEmpty == true { return try writeToManyOnly(update, pk: pk, entity: entity) }
        let values = try ahead ?? resolved(update.values)
        let wrote = try ahead != nil || uniquenessChecked(id: update.id, pk: pk, values: values, entity: entity) {
            try writer.update(entity, primaryKey: pk, values: values, expected: update.expectedVersion, only: changed)
        }
        // What the row held before this write: the base, since the row is at the version the
        // base was read at when the first write succeeds (versions change with every write).
        var written = (values: values, version: update.expectedVersion + 1, old: update.base)
        if !wrote {
            guard let rewritten = try writeOverChangedRow(update, values: values, pk: pk, entity: entity) else { return }
            written = rewritten
        }
        try writer.writeToMany(entity, primaryKey: pk, values: written.values, base: update.base)
        result.written[update.id] = RowSnapshot(values: written.values, version: written.version)
        record(HistoryRecord(entity: entity.name, primaryKey: pk, kind: .update,
                             updated: HistoryRecord.changedProperties(written.values, from: update.base, entity: entity),
                             values: HistoryRecord.values(of: entity, old: written.old, new: written.values)))
    }

    /// The row changed or vanished since the context read it: resolves by the merge policy
    /// (``RowMerge``) and writes over the store's row. Nil when nothing is written: a conflict
    /// was recorded, or our changes were dropped for the store's row.
    private mutating func writeOverChangedRow(_ update: SaveRequest.Update, values: [StoredValue], pk: Int64,
                                              entity: EntityDescription) throws
        -> (values: [StoredValue], version: Int64, old: [StoredValue])? {
        guard let theirs = try writer.currentRow(entity, primaryKey: pk) else {
            settleUpdateOfDeletedRow(update)
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
            try writer.update(entity, primaryKey: pk, values: merged, expected: theirs.version, only: nil)
        }
        guard rewrote else { throw writer.busyError() }
        return (merged, theirs.version + 1, theirs.values)
    }

    /// An update that changed to-many relationships only. They live outside the object's row
    /// (in the destinations' keys, or in a link table), so the row is not written: its version
    /// is neither checked nor bumped, and the additions and removals merge with whatever
    /// changed the row meanwhile, as to-many relationships always do (``RowMerge``). An
    /// invoice added to a client thus never conflicts with an edit of the client's name. (In
    /// Core Data it does: a to-many change bumps the row's version.) The row is read, kept from
    /// changing until the save ends, for the snapshot the contexts settle at: the store's
    /// columns at its version, our to-many values.
    private mutating func writeToManyOnly(_ update: SaveRequest.Update, pk: Int64, entity: EntityDescription) throws {
        guard let theirs = try writer.sharedRow(entity, primaryKey: pk) else { return settleUpdateOfDeletedRow(update) }
        let ours = try resolved(update.values)
        var values = theirs.values
        for i in values.indices where i < ours.count {
            if case .relationship(let r) = entity.properties[i], r.isToMany { values[i] = ours[i] }
        }
        try writer.writeToMany(entity, primaryKey: pk, values: values, base: update.base)
        result.written[update.id] = RowSnapshot(values: values, version: theirs.version)
        record(HistoryRecord(entity: entity.name, primaryKey: pk, kind: .update,
                             updated: HistoryRecord.changedProperties(ours, from: update.base, entity: entity),
                             values: HistoryRecord.values(of: entity, old: theirs.values, new: values)))
    }

    /// An update whose row another context or process deleted: a conflict under `.error`;
    /// the other policies drop our changes (``RowMerge/refusesUpdateOfDeletedRow(policy:)``).
    private mutating func settleUpdateOfDeletedRow(_ update: SaveRequest.Update) {
        if RowMerge.refusesUpdateOfDeletedRow(policy: request.mergePolicy) {
            conflicts.append(MergeConflict(objectID: update.id, deletedElsewhere: true,
                                           expectedVersion: update.expectedVersion, foundVersion: nil, properties: []))
        } else {
            result.rolledBack[update.id] = .some(nil)
        }
    }

    // MARK: Deletes

    private mutating func write(_ delete: SaveRequest.Delete) throws {
        guard let entity = writer.model.entity(named: delete.entity), let pk = delete.id.primaryKey else { return }
        // The row before it goes, for the tombstone and the old values history keeps.
        let keepsValues = !entity.historyValueIndices.isEmpty || entity.attributes.contains(where: \.isPreservedInHistoryOnDeletion)
        let row = writer.recordsHistory && keepsValues ? try writer.currentRow(entity, primaryKey: pk)?.values : nil
        let deleted = try writer.delete(entity, primaryKey: pk, expected: delete.expectedVersion)
        if !deleted, let theirs = try writer.currentRow(entity, primaryKey: pk) {
            // Changed since read: `.error` refuses; the other policies delete it anyway.
            if !RowMerge.deletesChangedRow(policy: request.mergePolicy) {
                conflicts.append(MergeConflict(objectID: delete.id, deletedElsewhere: false,
                                               expectedVersion: delete.expectedVersion, foundVersion: theirs.version,
                                               properties: []))
                return
            }
            _ = try writer.delete(entity, primaryKey: pk, expected: nil)
        }
        try writer.deleteLinks(entity, primaryKey: pk)
        result.deleted.insert(delete.id)
        record(HistoryRecord(entity: entity.name, primaryKey: pk, kind: .delete,
                             tombstone: row.flatMap { HistoryRecord.tombstone(of: entity, row: $0) },
                             values: row.map { HistoryRecord.values(of: entity, old: $0, new: nil) } ?? []))
    }

    // MARK: Uniqueness

    /// Runs a write; a UNIQUE constraint it breaks becomes ``SaveError/uniquenessViolation(_:)``
    /// naming the object and the model's constraint, found by looking the values up (never by
    /// reading the database's message). A unique index the model does not declare stays a
    /// store error.
    private func uniquenessChecked<T>(id: ObjectID, pk: Int64, values: [StoredValue], entity: EntityDescription,
                                      _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError where writer.isUniquenessFailure(error) {
            guard let group = try writer.uniquenessGroup(clashingWith: values, entity: entity, excluding: pk)
            else { throw SaveError.storeFailure(error) }
            throw SaveError.uniquenessViolation(UniquenessViolation(
                entity: entity.name, properties: group.map { entity.properties[$0].name },
                values: group.map { InspectedValue(values[$0]) }, objectID: id))
        }
    }
}
