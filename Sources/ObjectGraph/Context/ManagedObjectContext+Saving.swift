import Foundation

extension ManagedObjectContext {
    /// Saves the context's changes to its parent: a nested context's into its parent context
    /// (nothing reaches the store), a root context's into the store in one transaction.
    ///
    /// Validation runs first and reports every failure together. On any failure the parent,
    /// the store and the row cache are as before, and this context keeps its changes.
    /// Call it on the context's queue.
    public func save() throws {
        ConcurrencyDebug.checkIfEnabled(self, "save()")
        processPendingChanges()
        guard hasChanges else { return }
        NotificationCenter.default.post(name: Self.willSaveNotification, object: self)
        try validatePendingChanges()
        if let parent {
            try saveIntoParent(parent)
        } else {
            try saveToStore()
        }
    }

    /// Saves on the context's queue without blocking the calling thread.
    public func save() async throws {
        try await perform(schedule: .enqueued) { () throws in try self.save() }
    }

    func validatePendingChanges() throws {
        var failures: [ValidationFailure] = []
        for object in inserted.values { failures += Validator.validate(object, context: self) }
        for object in changed.values where object.isUpdated && !object.isDeletedFlag {
            failures += Validator.validate(object, context: self)
        }
        for object in deleted.values { failures += Validator.validateDelete(object, context: self) }
        if !failures.isEmpty { throw SaveError.validationFailed(failures) }
    }

    func saveToStore() throws {
        var request = SaveRequest()
        request.mergePolicy = mergePolicy
        request.author = transactionAuthor
        request.contextName = name
        for object in orderedInsertedObjects {
            request.inserts.append(.init(id: object.objectID, entity: object.entity.name, values: object.values))
        }
        for object in changed.values where object.isUpdated && !object.isDeletedFlag {
            request.updates.append(.init(id: object.objectID, entity: object.entity.name, values: object.values,
                                         base: object.baseValues, expectedVersion: object.rowVersion))
        }
        for object in deleted.values where !object.objectID.isTemporaryID {
            request.deletes.append(.init(id: object.objectID, entity: object.entity.name,
                                         expectedVersion: object.rowVersion))
        }
        let result: SaveResult
        do {
            result = try persistentStoreCoordinator.save(request)
        } catch let error as SaveError {
            throw error
        } catch let error as StoreError {
            throw SaveError.storeFailure(error)
        }
        // Descendants may still refer to the new objects by temporary ID until their
        // re-keying block runs: the coordinator remembers the mapping for their saves.
        let hasDescendants = !childContexts.isEmpty
        if hasDescendants { persistentStoreCoordinator.recordPermanentIDs(result.permanentIDs) }
        didSaveToStore(result)
        if hasDescendants {
            propagatePermanentIDs(result.permanentIDs)
            notifyChildrenOfSave(inserted: Set(result.permanentIDs.values), updated: Set(result.written.keys),
                                 deleted: result.deleted, except: nil)
        }
    }

    /// Brings the context in line with what the store wrote.
    private func didSaveToStore(_ result: SaveResult) {
        let insertedObjects = orderedInsertedObjects
        let savedUpdates = changed.values.filter { !$0.isDeletedFlag }
        var insertedIDs = Set<ObjectID>(), updatedIDs = Set<ObjectID>()
        rekey(insertedObjects.compactMap { o in result.permanentIDs[o.objectID].map { (o, $0) } },
              movingPendingChanges: false)
        // Saved objects referring to new objects by temporary ID now use the permanent one
        // (only they can: referring to a new object is a change of the referring object).
        if !result.permanentIDs.isEmpty {
            for object in insertedObjects { Self.replaceTemporaryReferences(in: object, result.permanentIDs) }
            for object in savedUpdates { Self.replaceTemporaryReferences(in: object, result.permanentIDs) }
        }
        var newlyHeld: [(ObjectID, RowSnapshot)] = []
        newlyHeld.reserveCapacity(insertedObjects.count)
        for object in insertedObjects {
            insertedIDs.insert(object.objectID)
            object.isInsertedFlag = false
            if case .some(.some(let adopted)) = result.rolledBack[object.objectID] {
                // An upsert that adopted the store's row (store-trump).
                object.values = adopted.values.enumerated().map { i, v in
                    if case .unloaded = v, i < object.values.count { return object.values[i] } else { return v }
                }
                object.rowVersion = adopted.version
            }
            object.baseValues = object.values
            if let snapshot = result.written[object.objectID] {
                object.rowVersion = snapshot.version
                if !object.holdsRowCacheEntry {
                    object.holdsRowCacheEntry = true
                    newlyHeld.append((object.objectID, snapshot))
                }
            }
        }
        for object in savedUpdates {
            if let row = result.rolledBack[object.objectID] {
                if let row { fill(object, with: row) } else { markDeletedElsewhere(object) }
                continue
            }
            object.baseValues = object.values
            if let snapshot = result.written[object.objectID] {
                updatedIDs.insert(object.objectID)
                object.rowVersion = snapshot.version
                if !object.holdsRowCacheEntry {
                    object.holdsRowCacheEntry = true
                    newlyHeld.append((object.objectID, snapshot))
                }
            }
        }
        persistentStoreCoordinator.rowCache.storeHeld(newlyHeld)
        let deletedIDs = Set(deleted.keys)
        registryLock.withLock { for id in deletedIDs { registry[id] = nil } }
        for id in deletedIDs { retained[id] = nil }
        for object in deleted.values {
            if object.holdsRowCacheEntry {
                persistentStoreCoordinator.rowCache.release(object.objectID)
                object.holdsRowCacheEntry = false
            }
            object.managedObjectContext = nil
        }
        inserted.removeAll()
        insertionOrder.removeAll()
        changed.removeAll()
        deleted.removeAll()
        NotificationCenter.default.post(name: Self.didSaveNotification, object: self, userInfo: [
            ChangeKey.inserted.rawValue: insertedIDs,
            ChangeKey.updated.rawValue: updatedIDs,
            ChangeKey.deleted.rawValue: deletedIDs,
        ])
        publish(ChangeSet(origin: .save, context: name, inserted: insertedIDs, updated: updatedIDs, deleted: deletedIDs))
    }

    static func replaceTemporaryReferences(in object: ManagedObject, _ map: [ObjectID: ObjectID]) {
        for i in object.values.indices {
            switch object.values[i] {
            case .reference(let id) where id.isTemporaryID:
                if let p = map[id] { object.values[i] = .reference(p) }
            case .references(let ids) where ids.contains(where: \.isTemporaryID):
                object.values[i] = .references(ids.map { map[$0] ?? $0 })
            default:
                break
            }
        }
    }

    /// Asks the store for permanent IDs for these (inserted) objects now, before the save.
    /// Every context holding them re-keys them; their temporary IDs keep resolving here.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        ConcurrencyDebug.checkIfEnabled(self, "obtainPermanentIDs(for:)")
        let ids = objects.map(\.objectID).filter(\.isTemporaryID)
        guard !ids.isEmpty else { return }
        let map = try persistentStoreCoordinator.obtainPermanentIDs(ids)
        persistentStoreCoordinator.recordPermanentIDs(map)
        applyPermanentIDs(map)
        propagatePermanentIDs(map)
    }
}
