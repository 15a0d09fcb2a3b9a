import Foundation

/// A nested context's save into its parent, and how permanent IDs travel a hierarchy.
///
/// A child's save is one step under the parent's queue: the uniqueness check, the conflict
/// check and the push happen in one block there, so of sibling children saving the same
/// unique value at once exactly one gets in (see ``plan(_:)`` for the merge rules).
extension ManagedObjectContext {
    func saveIntoParent(_ parent: ManagedObjectContext) throws {
        let unit = makeSaveUnit()
        let outcome: SettledSave = try parent.performAndWait {
            try parent.checkUniqueness(ofIncoming: unit)
            let received = try parent.receive(unit)
            return parent.outcomeOfReceiving(unit, received)
        }
        finishSave(unit, outcome, before: nil, savedBy: nil)
        parent.notifyChildrenOfSave(inserted: outcome.inserted, updated: Set(outcome.saved.keys).subtracting(outcome.inserted),
                                    deleted: outcome.deleted, except: self)
    }

    /// What the child that sent `unit` must take: this context's values of its objects now
    /// (they were just applied or, under a policy, kept), at this context's row versions.
    func outcomeOfReceiving(_ unit: SaveUnit, _ received: ReceivedSave) -> SettledSave {
        var outcome = SettledSave()
        for change in unit.changes {
            switch change.kind {
            case .delete:
                outcome.deleted.insert(change.id)
            case .insert, .update:
                if change.kind == .insert { outcome.inserted.insert(change.id) }
                if case .some(nil) = received.childTakes[change.id] {
                    outcome.goneElsewhere.insert(change.id)
                } else if let object = registeredObject(for: change.id), object.lifecycle == .loaded {
                    outcome.saved[change.id] = RowSnapshot(values: object.values, version: object.rowVersion)
                }
            }
        }
        return outcome
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
