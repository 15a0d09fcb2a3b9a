import Foundation

/// Bringing changes saved elsewhere into a context, keeping its unsaved edits on top.
extension ManagedObjectContext {
    /// Merges the changes a `didSaveNotification` describes (from any context of the same
    /// coordinator): registered updated objects are refreshed with this context's unsaved
    /// edits re-applied, inserted objects become reachable by fetches, and registered deleted
    /// objects report `isDeletedElsewhere`. Call it on this context's queue.
    public func mergeChanges(fromContextDidSave notification: Notification) {
        mergeChanges(ChangeSet(didSave: notification))
    }

    /// Merges a change set saved elsewhere (see ``mergeChanges(fromContextDidSave:)``); the
    /// `Sendable` form, for handing a save to another queue. Call it on this context's queue.
    public func mergeChanges(_ changes: ChangeSet) {
        merge(inserted: changes.inserted, updated: changes.updated, deleted: changes.deleted,
              origin: changes.origin == .remote ? .remote : .merge, from: changes.context)
    }

    /// Merges changes saved by a context that is not on this process's hierarchy (or not in
    /// this process: the IDs may come as URIs) into each of `contexts`, in order: list a
    /// parent before its children (the writer before the main context), so children refresh
    /// from a parent that already has the changes.
    ///
    /// Each context merges on its own queue; this call waits for all of them.
    public static func mergeChanges(fromRemoteContextSave changes: [ChangeKey: [ObjectID]],
                                    into contexts: [ManagedObjectContext]) {
        let inserted = Set(changes[.inserted] ?? []), updated = Set(changes[.updated] ?? [])
        let deleted = Set(changes[.deleted] ?? [])
        for context in contexts {
            context.performAndWait {
                context.merge(inserted: inserted, updated: updated, deleted: deleted, origin: .remote, from: nil)
            }
        }
    }

    /// The same, with IDs as URIs (as they arrive from another process). URIs that do not
    /// name an object of this store are skipped.
    public static func mergeChanges(fromRemoteContextSave changes: [ChangeKey: [URL]],
                                    into contexts: [ManagedObjectContext]) {
        guard let coordinator = contexts.first?.persistentStoreCoordinator else { return }
        var ids: [ChangeKey: [ObjectID]] = [:]
        for (key, uris) in changes {
            ids[key] = uris.compactMap { try? coordinator.managedObjectID(forURIRepresentation: $0) ?? nil }
        }
        mergeChanges(fromRemoteContextSave: ids, into: contexts)
    }

    /// The merge itself (on this context's queue).
    /// - Parameter skippedChild: a child that merges the same changes itself next (it is
    ///   not told again).
    func merge(inserted: Set<ObjectID>, updated: Set<ObjectID>, deleted: Set<ObjectID>,
               origin: ChangeSet.Origin, from source: String?, skippedChild: ManagedObjectContext? = nil) {
        // Rows changed elsewhere: the cache may hold the old versions.
        if origin == .remote && parent == nil {
            for id in updated.union(deleted) { persistentStoreCoordinator.rowCache.invalidate(id) }
        }
        var refreshed = Set<ObjectID>()
        for id in updated {
            guard let object = registeredObject(for: id), object.lifecycle == .loaded,
                  !object.isInsertedFlag else { continue }
            refreshKeepingLocalEdits(object)
            refreshed.insert(id)
        }
        var gone = Set<ObjectID>()
        for id in deleted {
            guard let object = registeredObject(for: id), !object.isInsertedFlag else { continue }
            if object.lifecycle == .fault { markDeletedElsewhere(object) } else { object.isDeletedElsewhereFlag = true }
            if !object.hasChanges { pending.forgetUpdate(of: object) }
            gone.insert(id)
        }
        // Inverse to-many lists may have changed with inserts and deletes elsewhere: reload
        // the ones not edited here on next access.
        if !inserted.isEmpty || !deleted.isEmpty {
            for object in registeredObjects where object.lifecycle == .loaded && !object.hasChanges {
                for index in object.entity.relationshipIndices where object.entity.relationshipDescription(at: index)?.isToMany == true {
                    object.values[index] = .unloaded
                    if index < object.baseValues.count { object.baseValues[index] = .unloaded }
                }
            }
        }
        if !refreshed.isEmpty || !gone.isEmpty {
            NotificationCenter.default.post(name: Self.objectsDidChangeNotification, object: self, userInfo: [
                ChangeKey.refreshed.rawValue: refreshed,
                ChangeKey.deleted.rawValue: gone,
            ])
        }
        publish(ChangeSet(origin: origin, context: source, inserted: inserted, updated: updated, deleted: deleted))
        notifyChildrenOfSave(inserted: inserted, updated: updated, deleted: deleted, except: skippedChild)
    }

    /// Reloads an object's committed values from this context's source (or takes `supplied`,
    /// what the source holds, when the caller has it) and re-applies the properties it
    /// changed locally.
    func refreshKeepingLocalEdits(_ object: ManagedObject, from supplied: RowSnapshot? = nil) {
        var local: [Int: StoredValue] = [:]
        for i in object.values.indices where i < object.baseValues.count
            && PropertyMerge.changedByUs(base: object.baseValues[i], ours: object.values[i],
                                         ordered: object.entity.isOrderedToMany(at: i)) {
            local[i] = object.values[i]
        }
        let snapshot: RowSnapshot?
        if let supplied {
            snapshot = supplied
        } else if let parent {
            snapshot = parent.snapshotForChild(object.objectID)
        } else {
            snapshot = try? persistentStoreCoordinator.freshSnapshot(for: object.objectID, entity: object.entity)
        }
        guard let snapshot else { markDeletedElsewhere(object); return }
        let oldBase = object.baseValues, oldVersion = object.rowVersion
        fill(object, with: snapshot)
        // A property edited here and changed there is a conflict, not ours to win silently:
        // it keeps its old base, and the object its old row version, so the save finds it
        // (and the merge policy decides). Properties only one side changed merge quietly.
        var conflicting = false
        for (i, value) in local {
            object.values[i] = value
            guard i < oldBase.count, i < snapshot.values.count else { continue }
            if case .unloaded = snapshot.values[i] {
                // A to-many edited here that the source does not list: the edit stays a
                // difference from what was read.
                if i < object.baseValues.count { object.baseValues[i] = oldBase[i] }
                continue
            }
            if case .unloaded = oldBase[i] { continue }
            if !ManagedObject.sameValue(snapshot.values[i], oldBase[i]) {
                object.baseValues[i] = oldBase[i]
                conflicting = true
            }
        }
        if conflicting { object.rowVersion = oldVersion }
        if !local.isEmpty { pending.noteUpdate(object) }
    }

    /// Tells the children that merge automatically what changed here (except the child that
    /// saved it). Each merges in a block enqueued on its own queue: a save never waits for
    /// its siblings.
    func notifyChildrenOfSave(inserted: Set<ObjectID>, updated: Set<ObjectID>, deleted: Set<ObjectID>,
                              except saver: ManagedObjectContext?) {
        if inserted.isEmpty && updated.isEmpty && deleted.isEmpty { return }
        let source = name
        for child in childContexts where child !== saver && child.automaticallyMergesChangesFromParent {
            child.perform {
                child.merge(inserted: inserted, updated: updated, deleted: deleted, origin: .merge, from: source)
            }
        }
    }
}
