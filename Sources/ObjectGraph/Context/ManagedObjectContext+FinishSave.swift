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

    func finalID(_ id: ObjectID) -> ObjectID { id.isTemporaryID ? permanentIDs[id] ?? id : id }
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
                    savedBy child: ManagedObjectContext?, cancelled: Set<ObjectID> = [], settlesEverything: Bool = false) {
        let map = outcome.permanentIDs
        // Saved values replace the objects' values below, references and all, unless edits
        // made meanwhile (`before`) or kept by an ancestor (`child`) stay on top of them.
        let objects = rekeySaved(unit, map, replacingReferences: before != nil || child != nil)
        var held: [(ObjectID, RowSnapshot)] = []
        var inserted = Set<ObjectID>(minimumCapacity: outcome.inserted.count)
        var updated = Set<ObjectID>(), deleted = Set<ObjectID>()
        var deletedAgain: [(ManagedObject, ObjectID)] = []
        func note(_ change: SaveUnit.Change, _ id: ObjectID) {
            if change.kind == .insert || outcome.inserted.contains(id) { inserted.insert(id) } else { updated.insert(id) }
        }
        for (change, found) in zip(unit.changes, objects) {
            let id = outcome.finalID(change.id)
            guard let object = found ?? (objectsBeingSaved.isEmpty ? nil : objectsBeingSaved[change.id]) else {
                if change.kind == .delete { deleted.insert(id) } else if outcome.saved[id] != nil { note(change, id) }
                continue
            }
            if change.kind == .delete || (!outcome.deleted.isEmpty && outcome.deleted.contains(id)) {
                forgetDeleted(object)
                deleted.insert(id)
            } else if !outcome.goneElsewhere.isEmpty && outcome.goneElsewhere.contains(id) {
                if !map.isEmpty { Self.replaceTemporaryReferences(in: object, map) }
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
                if deletedMeanwhile { deletedAgain.append((object, id)) }
                if parent == nil && !object.holdsRowCacheEntry && !id.isTemporaryID && object.managedObjectContext === self {
                    object.holdsRowCacheEntry = true
                    held.append((id, row.cacheable))
                }
                note(change, id)
            } else if !map.isEmpty && before == nil && child == nil && object.lifecycle == .loaded {
                Self.replaceTemporaryReferences(in: object, map)
                object.baseValues = Self.replacingTemporary(object.baseValues, map)
            }
        }
        for id in cancelled {
            guard let object = registeredObject(for: id) else { continue }
            object.isDeletedFlag = true
            forgetDeleted(object)
            deleted.insert(id)
        }
        persistentStoreCoordinator.rowCache.storeHeld(held)
        forgetPending(unit, outcome, settlesEverything: settlesEverything)
        for (object, id) in deletedAgain { keepDeletion(of: object, savedAs: id) }

        NotificationCenter.default.post(name: Self.didSaveNotification, object: self, userInfo: [
            ChangeKey.inserted.rawValue: inserted,
            ChangeKey.updated.rawValue: updated,
            ChangeKey.deleted.rawValue: deleted,
        ])
        publish(ChangeSet(origin: .save, context: name, inserted: inserted, updated: updated, deleted: deleted))
        notifyChildrenOfSave(inserted: inserted, updated: updated, deleted: deleted, except: child)
    }

    /// The unit's changes stop being pending (all of them at once when the unit held them all).
    private func forgetPending(_ unit: SaveUnit, _ outcome: SettledSave, settlesEverything: Bool) {
        if settlesEverything {
            pending.removeAllSaved()
            return
        }
        let deletions = Set(unit.changes.filter { $0.kind == .delete }.map { outcome.finalID($0.id) })
        pending.remove(Set(unit.changes.map { outcome.finalID($0.id) }).subtracting(deletions), deleted: deletions)
        pending.dropDeletedInserts()
    }

    /// An object deleted while the save that wrote it was under way: its row exists now, so
    /// the deletion becomes a pending delete of that row (its delete rules ran already).
    private func keepDeletion(of object: ManagedObject, savedAs id: ObjectID) {
        object.isDeletedFlag = true
        if object.objectID != id {
            let old = object.objectID
            object.objectID = id
            registryLock.withLock { aliases.add(old, id) }
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

    /// The unit's objects here, in the unit's order (nil where this context has none), found
    /// under one lock; new ones are re-keyed to their permanent IDs, the save's map becoming
    /// their aliases. With `replacingReferences`, the references the unit's objects hold are
    /// rewritten too (only they can refer to a new object: referring to one is a change);
    /// without, the saved values that replace theirs carry the permanent IDs already.
    private func rekeySaved(_ unit: SaveUnit, _ map: [ObjectID: ObjectID], replacingReferences: Bool) -> [ManagedObject?] {
        var objects: [ManagedObject?] = []
        objects.reserveCapacity(unit.changes.count)
        var pairs: [(ManagedObject, ObjectID)] = []
        registryLock.withLock {
            for change in unit.changes {
                let id = change.id
                var object = registry[id]?.takeUnretainedValue()
                if object == nil, id.isTemporaryID, let alias = aliases[id] { object = registry[alias]?.takeUnretainedValue() }
                objects.append(object)
                if !map.isEmpty, id.isTemporaryID, let object, object.objectID.isTemporaryID, let permanent = map[id] {
                    pairs.append((object, permanent))
                }
            }
        }
        if !pairs.isEmpty { rekey(pairs, movingPendingChanges: true, aliasBatch: map) }
        if replacingReferences && !map.isEmpty {
            for object in objects {
                guard let object, object.lifecycle == .loaded else { continue }
                Self.replaceTemporaryReferences(in: object, map)
                object.baseValues = Self.replacingTemporary(object.baseValues, map)
            }
        }
        return objects
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
