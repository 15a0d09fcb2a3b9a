import Foundation

/// What a save came to, handed down the chain so that each context that held its changes can
/// settle: the context that saved, and in a save through to the store every ancestor too.
struct SettledSave: Sendable {
    /// Temporary → permanent IDs of inserted objects (empty when no store write happened).
    var permanentIDs: [ObjectID: ObjectID] = [:]
    /// Each saved object's values as they now stand where the save ended (the store, or the
    /// context it saved into), references made permanent, and the row version there. Keyed by
    /// the object's final ID.
    var saved: [ObjectID: RowSnapshot] = [:]
    /// Final IDs of the objects inserted (a subset of `saved`'s keys).
    var inserted: Set<ObjectID> = []
    var deleted: Set<ObjectID> = []
    /// Objects whose changes a merge policy dropped because their row is gone.
    var goneElsewhere: Set<ObjectID> = []
    /// Saved objects whose values in `saved` are not what the save sent: a merge policy kept
    /// the store's row (or an ancestor's values) instead. An ancestor keeps its own edits of
    /// them pending on top.
    var keptElsewhere: Set<ObjectID> = []

    func finalID(_ id: ObjectID) -> ObjectID { permanentIDs[id] ?? id }
}

extension ManagedObjectContext {
    /// Brings this context in line with a save that succeeded: the unit's objects take the
    /// saved values and versions and stop being pending, temporary IDs become permanent,
    /// deleted objects go. Then DidSave is posted, `changes` told, and the children that merge
    /// hear of it (all but `savedBy`, the child the save came from).
    ///
    /// - Parameters:
    ///   - before: this context's values of the unit's objects when the save began. A
    ///     property whose value differs from it now was edited meanwhile and keeps the edit
    ///     (pending on top of the saved value). Nil: nothing can have changed meanwhile.
    ///   - savedBy: the child whose save this context passed on (nil: this context saved).
    ///     Such an ancestor keeps its own edits of objects a merge policy did not write.
    ///   - cancelled: this context's unsaved inserts that the save deleted: they go.
    ///
    /// Every save ends here: a root's save to the store, a child's save into its parent, and
    /// each context a save through to the store passes. Call it on this context's queue.
    func finishSave(_ unit: SaveUnit, _ outcome: SettledSave, before: [ObjectID: [StoredValue]]?,
                    savedBy child: ManagedObjectContext?, cancelled: Set<ObjectID> = []) {
        let map = outcome.permanentIDs
        if !map.isEmpty { rekeySaved(unit, map) }
        var held: [(ObjectID, RowSnapshot)] = []
        var inserted = Set<ObjectID>(), updated = Set<ObjectID>(), deleted = Set<ObjectID>()
        for change in unit.changes {
            let id = outcome.finalID(change.id)
            guard let object = registeredObject(for: id) ?? objectsBeingSaved[change.id] else {
                if change.kind == .delete { deleted.insert(id) } else if outcome.saved[id] != nil { note(change, id) }
                continue
            }
            if change.kind == .delete || outcome.deleted.contains(id) {
                forgetDeleted(object)
                deleted.insert(id)
            } else if outcome.goneElsewhere.contains(id) {
                markDeletedElsewhere(object)
                object.isInsertedFlag = false
                object.baseValues = object.values      // nothing left to save: the row is gone
            } else if let row = outcome.saved[id] {
                let deletedMeanwhile = object.isDeletedFlag
                if child != nil && outcome.keptElsewhere.contains(id) && object.lifecycle == .loaded {
                    refreshKeepingLocalEdits(object, from: row)
                } else {
                    settle(object, at: row, before: before?[change.id].map { Self.replacingTemporary($0, map) })
                }
                if deletedMeanwhile { keepDeletion(of: object, savedAs: id) }
                if parent == nil && !object.holdsRowCacheEntry && !id.isTemporaryID && object.managedObjectContext === self {
                    object.holdsRowCacheEntry = true
                    held.append((id, row.cacheable))
                }
                note(change, id)
            }
        }
        for id in cancelled {
            guard let object = registeredObject(for: id) else { continue }
            object.isDeletedFlag = true
            forgetDeleted(object)
            deleted.insert(id)
        }
        persistentStoreCoordinator.rowCache.storeHeld(held)
        let deletions = Set(unit.changes.filter { $0.kind == .delete }.map { outcome.finalID($0.id) })
        pending.remove(Set(unit.changes.map { outcome.finalID($0.id) }).subtracting(deletions), deleted: deletions)
        pending.dropDeletedInserts()

        func note(_ change: SaveUnit.Change, _ id: ObjectID) {
            if outcome.inserted.contains(id) || change.kind == .insert { inserted.insert(id) } else { updated.insert(id) }
        }
        NotificationCenter.default.post(name: Self.didSaveNotification, object: self, userInfo: [
            ChangeKey.inserted.rawValue: inserted,
            ChangeKey.updated.rawValue: updated,
            ChangeKey.deleted.rawValue: deleted,
        ])
        publish(ChangeSet(origin: .save, context: name, inserted: inserted, updated: updated, deleted: deleted))
        notifyChildrenOfSave(inserted: inserted, updated: updated, deleted: deleted, except: child)
    }

    /// An object deleted while the save that wrote it was under way: its row exists now, so
    /// the deletion becomes a pending delete of that row (its delete rules ran already).
    private func keepDeletion(of object: ManagedObject, savedAs id: ObjectID) {
        object.isDeletedFlag = true
        if object.objectID != id {
            let old = object.objectID
            object.objectID = id
            registryLock.withLock { aliases[old] = id }
        }
        register(object)
        pending.noteDeletedAfterSave(object)
    }

    /// The object takes the saved values: properties edited since `before` keep their edit.
    private func settle(_ object: ManagedObject, at row: RowSnapshot, before: [StoredValue]?) {
        var values = row.values
        if object.lifecycle == .loaded, let before {
            for i in values.indices where i < object.values.count && i < before.count
                && !ManagedObject.sameValue(object.values[i], before[i]) {
                values[i] = object.values[i]
            }
        }
        object.values = values
        object.baseValues = row.values
        object.rowVersion = row.version
        object.lifecycle = .loaded
        object.isInsertedFlag = false
        object.isDeletedElsewhereFlag = false
    }

    /// A deleted object leaves the context (pending inserts simply vanish).
    private func forgetDeleted(_ object: ManagedObject) {
        if object.isInsertedFlag { object.isDeletedFlag = true }
        registryLock.withLock { registry[object.objectID] = nil }
        retained[object.objectID] = nil
        if object.holdsRowCacheEntry {
            persistentStoreCoordinator.rowCache.release(object.objectID)
            object.holdsRowCacheEntry = false
        }
        object.managedObjectContext = nil
    }

    /// Re-keys the unit's new objects and rewrites the references the unit's objects hold
    /// (only they can refer to a new object: referring to one is a change).
    private func rekeySaved(_ unit: SaveUnit, _ map: [ObjectID: ObjectID]) {
        var pairs: [(ManagedObject, ObjectID)] = []
        for change in unit.changes where change.kind == .insert || change.id.isTemporaryID {
            if let permanent = map[change.id], let object = registeredObject(for: change.id),
               object.objectID.isTemporaryID {
                pairs.append((object, permanent))
            }
        }
        rekey(pairs, movingPendingChanges: true)
        for change in unit.changes {
            guard let object = registeredObject(for: map[change.id] ?? change.id), object.lifecycle == .loaded else { continue }
            Self.replaceTemporaryReferences(in: object, map)
            object.baseValues = Self.replacingTemporary(object.baseValues, map)
        }
    }

    static func replacingTemporary(_ values: [StoredValue], _ map: [ObjectID: ObjectID]) -> [StoredValue] {
        guard !map.isEmpty else { return values }
        return values.map { value in
            switch value {
            case .reference(let id) where id.isTemporaryID: return .reference(map[id] ?? id)
            case .references(let ids) where ids.contains(where: \.isTemporaryID): return .references(ids.map { map[$0] ?? $0 })
            default: return value
            }
        }
    }

    static func replaceTemporaryReferences(in object: ManagedObject, _ map: [ObjectID: ObjectID]) {
        object.values = replacingTemporary(object.values, map)
    }
}

extension RowSnapshot {
    /// As the row cache keeps it: to-many relationships unloaded (their truth is in other rows).
    var cacheable: RowSnapshot {
        guard values.contains(where: { if case .references = $0 { return true } else { return false } }) else { return self }
        return RowSnapshot(values: values.map { if case .references = $0 { return .unloaded } else { return $0 } },
                           version: version)
    }
}
