import Foundation

extension ManagedObjectContext {
    /// Saves the context's changes to its parent: a nested context's into its parent context
    /// (nothing reaches the store), a root context's into the store in one transaction.
    ///
    /// Validation runs first and reports every failure together. On any failure the parent,
    /// the store and the row cache are as before, and this context keeps its changes.
    /// Call it on the context's queue.
    ///
    /// A nested save changes only the parent; its changes reach the file when every ancestor
    /// has saved in turn, and if one of those saves fails the change stays behind in the
    /// ancestors. To save a child's changes to the store as one unit, use ``saveToStore()``.
    public func save() throws {
        ConcurrencyDebug.checkIfEnabled(self, "save()")
        processPendingChanges()
        guard hasChanges else { return }
        NotificationCenter.default.post(name: Self.willSaveNotification, object: self)
        try validatePendingChanges()
        if let parent {
            try saveIntoParent(parent)
        } else {
            try writeToStore()
        }
    }

    /// Saves on the context's queue without blocking the calling thread.
    public func save() async throws {
        try await perform(schedule: .enqueued) { () throws in try self.save() }
    }

    func validatePendingChanges() throws {
        var failures: [ValidationFailure] = []
        for object in pending.orderedInserts { failures += Validator.validate(object, context: self) }
        for object in pending.updates { failures += Validator.validate(object, context: self) }
        for object in pending.deleted.values { failures += Validator.validateDelete(object, context: self) }
        if !failures.isEmpty { throw SaveError.validationFailed(failures) }
    }

    /// A root context's save: its pending changes, written in one transaction.
    func writeToStore() throws {
        let unit = makeSaveUnit()
        let outcome = try writeToStore(unit)
        let map = outcome.permanentIDs
        // Descendants may still refer to the new objects by temporary ID until their
        // re-keying block runs: the coordinator remembers the mapping for their saves.
        let hasDescendants = !childContexts.isEmpty
        if hasDescendants {
            // Re-keying blocks go to the descendants before the merges finishSave tells them of.
            persistentStoreCoordinator.recordPermanentIDs(map)
            propagatePermanentIDs(map)
        }
        // The unit held every pending change, and nothing changed since it was made.
        finishSave(unit, outcome, before: nil, savedBy: nil, settlesEverything: true)
    }

    /// Writes `unit` (as this root context sees it) to the store. Nothing in any context
    /// changes here: the caller settles them with the outcome.
    /// - Throws: ``SaveError``; store errors come as ``SaveError/storeFailure(_:)``.
    func writeToStore(_ unit: SaveUnit) throws -> SettledSave {
        try writeToStore(unit, author: transactionAuthor, contextName: name)
    }

    /// Writes `unit`, recorded in persistent history under `author` and `contextName`.
    func writeToStore(_ unit: SaveUnit, author: String?, contextName: String?) throws -> SettledSave {
        let request = SaveRequest(unit, author: author, contextName: contextName)
        let result: SaveResult
        do {
            result = try persistentStoreCoordinator.save(request)
        } catch let error as StoreError {
            throw SaveError.storeFailure(error)
        }
        return SettledSave(result, unit: unit)
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

extension SettledSave {
    /// What a store write came to, for the unit it wrote.
    init(_ result: SaveResult, unit: SaveUnit) {
        self.init(permanentIDs: result.permanentIDs)
        if result.rolledBack.isEmpty {
            // Every insert and update was written as sent: the rows written are the saved ones.
            saved = result.written
            inserted.reserveCapacity(result.permanentIDs.count)
            for change in unit.changes {
                switch change.kind {
                case .delete: deleted.insert(finalID(change.id))
                case .insert: inserted.insert(finalID(change.id))
                case .update: break
                }
            }
            return
        }
        for change in unit.changes {
            let id = finalID(change.id)
            switch change.kind {
            case .delete:
                deleted.insert(id)
            case .insert, .update:
                if change.kind == .insert { inserted.insert(id) }
                if case .some(let row) = result.rolledBack[id] {
                    // The policy kept the store's row (adopted upsert, rollback), or it is gone.
                    if let row {
                        saved[id] = row
                        keptElsewhere.insert(id)
                    } else {
                        goneElsewhere.insert(id)
                    }
                } else if let row = result.written[id] {
                    saved[id] = row
                }
            }
        }
    }
}
