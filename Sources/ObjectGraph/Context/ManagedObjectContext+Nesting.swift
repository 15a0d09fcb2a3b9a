import Foundation

/// A nested context's save, and the ways changes travel through a hierarchy of contexts.
///
/// Invariants:
/// - A child's save changes only its parent: the parent's objects take the child's changes
///   and become the parent's pending changes; nothing reaches the store.
/// - The child remembers the parent's value of each property when it read it (its base
///   values). A property the child changed that the parent changed since is a conflict,
///   resolved by the child's merge policy; `.error` refuses the whole save and changes
///   nothing in the parent.
/// - To-many relationships never conflict: the child's additions and removals are applied to
///   the parent's current set, so two children adding invoices to one client both land.
extension ManagedObjectContext {
    struct PushedObject {
        let id: ObjectID
        let entity: EntityDescription
        let values: [StoredValue]
        let base: [StoredValue]
    }

    func saveIntoParent(_ parent: ManagedObjectContext) throws {
        let inserts = orderedInsertedObjects.map { PushedObject(id: $0.objectID, entity: $0.entity, values: $0.values, base: $0.values) }
        let updatedObjects = changed.values.filter { $0.isUpdated && !$0.isDeletedFlag }
        let updates = updatedObjects.map { PushedObject(id: $0.objectID, entity: $0.entity, values: $0.values, base: $0.baseValues) }
        let deletes = deleted.values.map(\.objectID)
        let policy = mergePolicy
        try checkUniqueness(of: inserted.values.map { $0 } + updatedObjects)

        // Runs on the parent's queue (a brief hop): check everything first, then apply.
        let outcome: [ObjectID: [StoredValue]?] = try parent.performAndWait {
            let result = try parent.receiveChildSave(inserts: inserts, updates: updates, deletes: deletes, policy: policy)
            parent.processPendingChanges()
            return result
        }

        // The child's objects now match what the parent holds.
        var insertedIDs = Set<ObjectID>(), updatedIDs = Set<ObjectID>()
        for object in orderedInsertedObjects {
            object.isInsertedFlag = false
            object.baseValues = object.values
            insertedIDs.insert(object.objectID)
        }
        for object in updatedObjects {
            if let parentValues = outcome[object.objectID] {
                // Store-trump or rollback: the parent's values win for this object.
                if let parentValues { object.values = parentValues; object.baseValues = parentValues }
                else { markDeletedElsewhere(object) }
            } else {
                object.baseValues = object.values
            }
            updatedIDs.insert(object.objectID)
        }
        let deletedIDs = Set(deleted.keys)
        registryLock.withLock { for id in deletedIDs { registry[id] = nil } }
        for id in deletedIDs { retained[id] = nil }
        for object in deleted.values { object.managedObjectContext = nil }
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
        parent.notifyChildrenOfSave(inserted: insertedIDs, updated: updatedIDs, deleted: deletedIDs, except: self)
    }

    /// Applies a child's save on this (the parent's) queue.
    /// - Returns: for objects whose changes the policy dropped in part or whole, the values
    ///   the child must take (nil: the object is gone here).
    private func receiveChildSave(inserts: [PushedObject], updates: [PushedObject], deletes: [ObjectID],
                                  policy: MergePolicy) throws -> [ObjectID: [StoredValue]?] {
        var conflicts: [MergeConflict] = []
        var plans: [(object: ManagedObject, values: [StoredValue])] = []
        var childTakes: [ObjectID: [StoredValue]?] = [:]

        for update in updates {
            guard let object = try? object(with: update.id) else { continue }
            if object.lifecycle == .fault { fulfillFault(object) }
            if object.isDeletedFlag || object.isDeletedElsewhereFlag {
                if policy == .error {
                    conflicts.append(MergeConflict(objectID: update.id, deletedElsewhere: true, expectedVersion: 0,
                                                   foundVersion: nil, properties: []))
                } else {
                    childTakes[update.id] = .some(nil)
                }
                continue
            }
            var merged = object.values
            var propertyConflicts: [MergeConflict.PropertyConflict] = []
            for (i, property) in update.entity.properties.enumerated() where i < merged.count {
                let ours = update.values[i], base = update.base[i], theirs = object.values[i]
                if case .unloaded = ours { continue }
                let changedByUs = !ManagedObject.sameValue(ours, base)
                if case .relationship(let r) = property, r.isToMany {
                    if changedByUs { merged[i] = Self.mergedToMany(base: base, ours: ours, theirs: loadToManyValue(object, i)) }
                    continue
                }
                let changedByThem = !ManagedObject.sameValue(theirs, base)
                if changedByUs && changedByThem && !ManagedObject.sameValue(ours, theirs) {
                    propertyConflicts.append(.init(property: property.name, base: base.displayString,
                                                   ours: ours.displayString, theirs: theirs.displayString))
                    switch policy {
                    case .error, .mergeByPropertyStoreTrump, .rollback: break
                    case .mergeByPropertyObjectTrump, .overwrite: merged[i] = ours
                    }
                } else if changedByUs || policy == .overwrite {
                    merged[i] = ours
                }
            }
            if !propertyConflicts.isEmpty {
                switch policy {
                case .error:
                    conflicts.append(MergeConflict(objectID: update.id, deletedElsewhere: false,
                                                   expectedVersion: 0, foundVersion: nil, properties: propertyConflicts))
                    continue
                case .rollback:
                    childTakes[update.id] = .some(object.values)
                    continue
                case .mergeByPropertyStoreTrump:
                    childTakes[update.id] = .some(merged)
                case .mergeByPropertyObjectTrump, .overwrite:
                    break
                }
            }
            plans.append((object, merged))
        }
        if !conflicts.isEmpty { throw SaveError.mergeConflict(conflicts) }

        for insert in inserts {
            let object = registeredObject(for: insert.id) ?? makeFault(insert.id, entity: insert.entity)
            object.values = insert.values
            object.baseValues = insert.values
            object.lifecycle = .loaded
            if !object.isInsertedFlag { self.insert(object) }
        }
        for (object, values) in plans where values != object.values {
            object.values = values
            objectDidChange(object)
        }
        for id in deletes {
            if let object = try? object(with: id) { delete(object) }
        }
        return childTakes
    }

    private func loadToManyValue(_ object: ManagedObject, _ index: Int) -> StoredValue {
        .references(loadToMany(of: object, at: index))
    }

    /// The parent's current destinations, with the child's additions and removals applied.
    static func mergedToMany(base: StoredValue, ours: StoredValue, theirs: StoredValue) -> StoredValue {
        guard case .references(let mine) = ours else { return theirs }
        let before: [ObjectID] = { if case .references(let b) = base { return b } else { return [] } }()
        guard case .references(var current) = theirs else { return ours }
        let removed = Set(before).subtracting(mine)
        current.removeAll { removed.contains($0) }
        let present = Set(current)
        current.append(contentsOf: mine.filter { !present.contains($0) && !before.contains($0) })
        return .references(current)
    }

    // MARK: Permanent IDs across the hierarchy

    /// Re-keys this context's objects to their permanent IDs (the old IDs stay aliases) and
    /// rewrites references held by loaded objects.
    func applyPermanentIDs(_ map: [ObjectID: ObjectID]) {
        guard !map.isEmpty else { return }
        let pairs = map.compactMap { (temporary, permanent) -> (ManagedObject, ObjectID)? in
            guard let object = registeredObject(for: temporary), object.objectID.isTemporaryID else { return nil }
            return (object, permanent)
        }
        rekey(pairs, movingPendingChanges: true)
        for object in registeredObjects where object.lifecycle == .loaded {
            Self.replaceTemporaryReferences(in: object, map)
            if object.baseValues.contains(where: { if case .reference(let id) = $0 { return id.isTemporaryID } else { return false } }) {
                object.baseValues = object.baseValues.map { v in
                    if case .reference(let id) = v, let p = map[id] { return .reference(p) } else { return v }
                }
            }
        }
    }

    /// Every other context of the hierarchy re-keys too: at once when it runs on this thread
    /// right now, else in a block enqueued on its queue (never a blocking hop, so a save
    /// cannot deadlock on a context that waits for it).
    func propagatePermanentIDs(_ map: [ObjectID: ObjectID]) {
        guard !map.isEmpty else { return }
        var pending: [ManagedObjectContext] = []
        var ancestor = parent
        while let context = ancestor { pending.append(context); ancestor = context.parent }
        var stack = [root]
        while let context = stack.popLast() {
            if context !== self { pending.append(context) }
            stack.append(contentsOf: context.childContexts)
        }
        var seen = Set<ObjectIdentifier>()
        for context in pending where seen.insert(ObjectIdentifier(context)).inserted {
            if context.isOnQueue {
                context.applyPermanentIDs(map)
            } else {
                context.perform { context.applyPermanentIDs(map) }
            }
        }
    }
}
