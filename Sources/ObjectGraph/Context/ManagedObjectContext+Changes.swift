import Foundation

extension ManagedObjectContext {
    // MARK: Pending changes

    /// Whether the context has inserted, updated or deleted objects not yet saved.
    public var hasChanges: Bool { !pending.isEmpty }

    /// Objects inserted since the last save.
    public var insertedObjects: Set<ManagedObject> { Set(pending.orderedInserts) }
    /// Objects with changed properties since the last save (not inserted, not deleted).
    public var updatedObjects: Set<ManagedObject> { Set(pending.changed.filter { $0.isUpdated }) }
    /// Objects to be deleted at the next save.
    public var deletedObjects: Set<ManagedObject> { Set(pending.deleted.values) }

    func insert(_ object: ManagedObject) {
        object.isInsertedFlag = true
        register(object)
        pending.noteInsert(object)
    }

    /// The objects inserted and not deleted, in insertion order.
    var orderedInsertedObjects: [ManagedObject] { pending.orderedInserts }

    /// Marks `object` for deletion at the next save. Delete rules run at the end of the
    /// current block (`processPendingChanges()`). Deleting an object inserted since the last
    /// save simply forgets it.
    public func delete(_ object: ManagedObject) {
        ConcurrencyDebug.checkIfEnabled(self, "delete(_:)")
        guard object.managedObjectContext === self, !object.isDeletedFlag else { return }
        if object.lifecycle == .fault { fulfillFault(object) }
        object.isDeletedFlag = true
        pending.noteDelete(object)
    }

    func objectDidChange(_ object: ManagedObject) {
        guard !object.isInsertedFlag else { return }
        pending.noteUpdate(object)
    }

    /// Runs delete rules for objects deleted since the last call and posts
    /// ObjectsDidChange. Runs by itself at the end of every `perform` block.
    public func processPendingChanges() {
        while !pending.deletesToPropagate.isEmpty {
            let batch = pending.deletesToPropagate
            pending.deletesToPropagate.removeAll()
            for object in batch { applyDeleteRules(to: object) }
        }
        // Objects inserted and deleted before a save vanish entirely.
        pending.dropDeletedInserts()
        if !pending.unprocessed.isEmpty { postObjectsDidChange(pending.takeUnprocessed()) }
    }

    private func applyDeleteRules(to object: ManagedObject) {
        for index in object.entity.relationshipIndices {
            guard let rel = object.entity.relationshipDescription(at: index) else { continue }
            switch rel.deleteRule {
            case .noAction, .deny:
                continue
            case .nullify:
                for target in relatedObjects(of: object, at: index) {
                    removeFromInverse(target, ofRelationshipAt: index, owner: object)
                }
            case .cascade:
                for target in relatedObjects(of: object, at: index) where !target.isDeletedFlag {
                    removeFromInverse(target, ofRelationshipAt: index, owner: object)
                    delete(target)
                }
            }
        }
        if object.isInsertedFlag {
            // Unregister: it never existed outside this context.
            registryLock.withLock { registry[object.objectID] = nil }
            retained[object.objectID] = nil
        }
    }

    // MARK: Relationships

    func relatedObjects(of object: ManagedObject, at index: Int) -> [ManagedObject] {
        if object.lifecycle == .fault { fulfillFault(object) }
        if ConcurrencyDebug.isEnabled { ConcurrencyDebug.check(object) }
        guard index < object.values.count else { return [] }
        switch object.values[index] {
        case .reference(let id):
            return (try? self.object(with: id)).map { [$0] } ?? []
        case .references(let ids):
            return ids.compactMap { try? self.object(with: $0) }
        case .unloaded:
            let ids = loadToMany(of: object, at: index)
            return ids.compactMap { try? self.object(with: $0) }
        default:
            return []
        }
    }

    /// The destination IDs of a to-many relationship, loading them when needed.
    @discardableResult
    /// - Parameter readingRows: whether the destinations' rows are read too (into the row
    ///   cache, for the faults that usually follow); keeping an inverse in step needs IDs only.
    func loadToMany(of object: ManagedObject, at index: Int, readingRows: Bool = true) -> [ObjectID] {
        if case .references(let ids) = object.values[index] { return ids }
        guard let rel = object.entity.relationshipDescription(at: index) else { return [] }
        let ids: [ObjectID]
        if let parent {
            ids = parent.toManyForChild(object.objectID, relationship: rel) ?? []
        } else if object.objectID.isTemporaryID {
            ids = []
        } else {
            let coordinator = persistentStoreCoordinator
            ids = (try? readingRows
                ? coordinator.destinations(of: object.objectID, relationship: rel, entity: object.entity)
                : coordinator.destinationIDs(of: object.objectID, relationship: rel, entity: object.entity)) ?? []
        }
        object.values[index] = .references(ids)
        if index < object.baseValues.count { object.baseValues[index] = .references(ids) }
        return ids
    }

    /// The destinations a child sees for a to-many relationship: from the nearest of this
    /// context and its ancestors that has the object registered (its unsaved changes count),
    /// in a brief hop onto that context's queue; when none has, from the store, read holding
    /// no context's queue (an object whose relationship changed is registered where it did).
    func toManyForChild(_ id: ObjectID, relationship: RelationshipDescription) -> [ObjectID]? {
        var context: ManagedObjectContext? = self
        while let current = context {
            if id.isTemporaryID || current.hasRegistered(id) {
                return current.performAndWait { current.loadedToMany(of: id, relationship: relationship.name) }
            }
            context = current.parent
        }
        guard let entity = model.entity(of: id) else { return nil }
        return try? persistentStoreCoordinator.destinations(of: id, relationship: relationship, entity: entity)
    }

    /// This context's destinations of a to-many relationship, loading them (call on its queue).
    private func loadedToMany(of id: ObjectID, relationship: String) -> [ObjectID]? {
        guard let object = try? self.object(with: id),
              let index = object.entity.propertyIndex(named: relationship) else { return nil }
        if object.lifecycle == .fault { fulfillFault(object) }
        return loadToMany(of: object, at: index)
    }

    /// Sets a relationship and keeps every inverse in step at once.
    func setRelatedObjects(_ objects: [ManagedObject], of owner: ManagedObject, at index: Int) {
        if owner.lifecycle == .fault { fulfillFault(owner) }
        if ConcurrencyDebug.isEnabled { ConcurrencyDebug.check(owner) }
        guard index < owner.entity.links.count, let link = owner.entity.links[index] else { return }
        let valid = objects.allSatisfy { $0.managedObjectContext === self } ? objects
            : objects.filter { $0.managedObjectContext === self }
        if !link.isToMany {
            let newTarget = valid.first
            let oldID: ObjectID? = { if case .reference(let id) = owner.values[index] { return id } else { return nil } }()
            if oldID == newTarget?.objectID { return }
            if let oldID, let old = try? object(with: oldID) { removeFromInverse(old, ofRelationshipAt: index, owner: owner) }
            owner.values[index] = newTarget.map { .reference($0.objectID) } ?? .null
            objectDidChange(owner)
            if let newTarget { addToInverse(newTarget, ofRelationshipAt: index, owner: owner) }
        } else {
            let current = loadToMany(of: owner, at: index)
            var newIDs: [ObjectID] = []
            var seen = Set<ObjectID>()
            for object in valid where seen.insert(object.objectID).inserted { newIDs.append(object.objectID) }
            if current == newIDs { return }
            let currentSet = Set(current)
            owner.values[index] = .references(newIDs)
            objectDidChange(owner)
            for id in current where !seen.contains(id) {
                if let target = try? object(with: id) { removeFromInverse(target, ofRelationshipAt: index, owner: owner) }
            }
            for object in valid where !currentSet.contains(object.objectID) {
                addToInverse(object, ofRelationshipAt: index, owner: owner)
            }
        }
    }

    /// Removes `owner` from `target`'s side of the relationship at `index` of `owner` (its inverse).
    func removeFromInverse(_ target: ManagedObject, ofRelationshipAt index: Int, owner: ManagedObject) {
        if target.lifecycle == .fault { fulfillFault(target) }
        guard let link = owner.entity.links[index] else { return }
        let inverseIndex = link.inverseIndex
        if link.inverseIsToMany {
            let ids = loadToMany(of: target, at: inverseIndex)
            guard ids.contains(owner.objectID) else { return }
            target.values[inverseIndex] = .references(ids.filter { $0 != owner.objectID })
        } else {
            guard case .reference(let id) = target.values[inverseIndex], id == owner.objectID else { return }
            target.values[inverseIndex] = .null
        }
        objectDidChange(target)
    }

    /// Adds `owner` to `target`'s side of the relationship at `index` of `owner`; a to-one
    /// inverse first leaves its old owner.
    func addToInverse(_ target: ManagedObject, ofRelationshipAt index: Int, owner: ManagedObject) {
        if target.lifecycle == .fault { fulfillFault(target) }
        guard let link = owner.entity.links[index] else { return }
        let inverseIndex = link.inverseIndex
        if link.inverseIsToMany {
            var ids = loadToMany(of: target, at: inverseIndex, readingRows: false)
            guard !ids.contains(owner.objectID) else { return }
            // Appended in place: the slot lets go of the list first, so it is not copied
            // (a client's invoices, inserted one by one, would be copied once per invoice).
            target.values[inverseIndex] = .null
            ids.append(owner.objectID)
            target.values[inverseIndex] = .references(ids)
        } else {
            if case .reference(let previousID) = target.values[inverseIndex] {
                if previousID == owner.objectID { return }
                // The target leaves its previous owner's side of the relationship.
                if let previous = try? object(with: previousID) {
                    if previous.lifecycle == .fault { fulfillFault(previous) }
                    if link.isToMany {
                        let ids = loadToMany(of: previous, at: index, readingRows: false)
                        previous.values[index] = .references(ids.filter { $0 != target.objectID })
                    } else if case .reference(let back) = previous.values[index], back == target.objectID {
                        previous.values[index] = .null
                    }
                    objectDidChange(previous)
                }
            }
            target.values[inverseIndex] = .reference(owner.objectID)
        }
        objectDidChange(target)
    }

    // MARK: Undoing

    /// Forgets every unsaved change: updated objects get their committed values back,
    /// inserted objects are forgotten, deleted ones are restored.
    public func rollback() {
        ConcurrencyDebug.checkIfEnabled(self, "rollback()")
        for object in pending.orderedInserts {
            registryLock.withLock { registry[object.objectID] = nil }
            retained[object.objectID] = nil
            object.managedObjectContext = nil
        }
        for object in pending.changed {
            object.values = object.baseValues
        }
        for object in pending.deleted.values {
            object.isDeletedFlag = false
            object.values = object.baseValues
        }
        pending.removeAll()
    }

    /// Forgets every object: references to them become invalid (their context is nil).
    public func reset() {
        ConcurrencyDebug.checkIfEnabled(self, "reset()")
        let objects = registeredObjects
        for object in objects {
            if object.holdsRowCacheEntry {
                persistentStoreCoordinator.rowCache.release(object.objectID)
                object.holdsRowCacheEntry = false
            }
            object.managedObjectContext = nil
        }
        registryLock.withLock {
            registry.removeAll()
            aliases.removeAll()
        }
        retained.removeAll()
        pending.removeAll()
        postInvalidatedAll()
    }

    /// Turns `object` into a fault (`mergeChanges: false`, dropping its unsaved changes), or
    /// reloads its committed values and re-applies its unsaved changes on top (`true`).
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        ConcurrencyDebug.checkIfEnabled(self, "refresh(_:mergeChanges:)")
        guard object.managedObjectContext === self, !object.isInsertedFlag else { return }
        if !mergeChanges || object.lifecycle == .fault {
            pending.forgetUpdate(of: object)
            object.values = []
            object.baseValues = []
            object.lifecycle = .fault
            return
        }
        refreshKeepingLocalEdits(object)
    }
}
