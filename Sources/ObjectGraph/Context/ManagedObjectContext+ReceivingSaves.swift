import Foundation

extension ReceivedSave {
    /// The ID this context knows the object by, noting an alias when it differs.
    mutating func canonical(_ id: ObjectID, _ view: ManagedObjectContext.ObjectView) -> ObjectID {
        guard let own = view.object?.objectID, own != id else { return id }
        aliases[id] = own
        return own
    }
}

/// What a context makes of a save coming up from a child, decided before anything changes:
/// the merged values, and the save as this context passes it on. Values only, no managed
/// objects: it crosses queues in a save through to the store.
struct ReceivedSave: Sendable {
    /// The same objects as this context would save them further up: its merged values, with
    /// its own base values and row versions.
    var outgoing: SaveUnit
    /// The merged values of updated objects, to apply here (by their ID here).
    var merged: [ObjectID: [StoredValue]] = [:]
    /// This context's values of the outgoing objects when it planned, by their ID here
    /// (absent: not loaded here).
    var before: [ObjectID: [StoredValue]] = [:]
    /// IDs the child used that name objects known here by another ID: a temporary ID of an
    /// object this context already made permanent (`obtainPermanentIDs(for:)`).
    var aliases: [ObjectID: ObjectID] = [:]
    /// Objects whose values the child must take because the policy kept values found here
    /// (store-trump, rollback); nil: the object is gone here.
    var childTakes: [ObjectID: [StoredValue]?] = [:]
    /// This context's own unsaved inserts that the child deleted: they simply go.
    var cancelledInserts: Set<ObjectID> = []
}

/// Receiving a child's save: planned first (nothing changes, so a conflict leaves this
/// context as it was), then applied in the same block of this context's queue.
///
/// Invariants:
/// - The child remembers the value of each property when it read it (its base). A property
///   the child changed that was changed here since is a conflict, resolved by the child's
///   merge policy (``PropertyMerge``); `.error` refuses the whole save.
/// - To-many relationships never conflict: the child's additions and removals are applied to
///   this context's current set.
extension ManagedObjectContext {
    /// Plans `incoming` against this context's current state. Call it on this context's queue.
    /// - Parameters:
    ///   - materializing: register and load the objects planned (a save into this context,
    ///     which applies the plan next), or only read their values (a save passing through,
    ///     a dry run: the context is left exactly as it was, no fault fired, nothing loaded).
    ///   - held: the objects materialized, kept alive for ``apply(_:_:)`` in the same block
    ///     (a context holds unchanged objects weakly).
    /// - Throws: ``SaveError/mergeConflict(_:)`` under `.error`; nothing has changed then.
    func plan(_ incoming: SaveUnit, materializing: Bool, holding held: inout [ManagedObject]) throws -> ReceivedSave {
        var received = ReceivedSave(outgoing: SaveUnit(policy: incoming.policy))
        var conflicts: [MergeConflict] = []
        var failures: [ValidationFailure] = []
        var outgoing: [SaveUnit.Change] = []
        for change in incoming.changes {
            switch change.kind {
            case .insert:
                outgoing.append(change)
            case .update:
                guard let current = view(of: change.id, materializing: materializing, holding: &held),
                      let next = planUpdate(change, current, materializing: materializing, policy: incoming.policy,
                                            into: &received, conflicts: &conflicts) else { continue }
                failures += validateMerged(next, madeFrom: change)
                outgoing.append(next)
            case .delete:
                guard let current = view(of: change.id, materializing: materializing, holding: &held) else { continue }
                if current.isInserted {
                    received.cancelledInserts.insert(change.id)
                    continue
                }
                let id = received.canonical(change.id, current)
                received.before[id] = current.values
                outgoing.append(.init(id: id, entity: change.entity, kind: .delete, values: [], base: [],
                                      version: current.version))
            }
        }
        if !conflicts.isEmpty { throw SaveError.mergeConflict(conflicts) }
        let pulled = ownInsertsReferenced(by: outgoing, into: &received, holding: &held, failures: &failures)
        if !failures.isEmpty { throw SaveError.validationFailed(failures) }
        received.outgoing.changes = outgoing + pulled
        return received
    }

    /// An object as this context holds it, for planning.
    struct ObjectView {
        var object: ManagedObject?
        var values: [StoredValue]
        var base: [StoredValue]
        var version: Int64
        var isInserted = false
        /// Deleted here, or deleted elsewhere (the row is gone).
        var isGone = false
    }

    /// The object's values here: from its registered, loaded instance, or else read from the
    /// parent chain or the store without registering anything (unless `materializing`).
    func view(of id: ObjectID, materializing: Bool, holding held: inout [ManagedObject]) -> ObjectView? {
        if materializing || registeredObject(for: id)?.lifecycle == .loaded {
            guard let object = try? object(with: id) else { return nil }
            if object.lifecycle == .fault { fulfillFault(object) }
            held.append(object)
            return ObjectView(object: object, values: object.values, base: object.baseValues, version: object.rowVersion,
                              isInserted: object.isInsertedFlag,
                              isGone: object.isDeletedFlag || object.isDeletedElsewhereFlag)
        }
        if id.isTemporaryID && registeredObject(for: id) == nil && !ancestorsKnow(id) { return nil }
        let snapshot: RowSnapshot?
        if let parent {
            snapshot = parent.snapshotForChild(id)
        } else if let entity = model.entity(of: id) {
            snapshot = try? persistentStoreCoordinator.snapshot(for: id, entity: entity)
        } else {
            return nil
        }
        guard let snapshot else { return ObjectView(values: [], base: [], version: 0, isGone: true) }
        return ObjectView(values: snapshot.values, base: snapshot.values, version: snapshot.version)
    }

    /// One updated object: its merged values here, and its change as this context passes it
    /// on (nil when the policy dropped it, or it conflicts under `.error`).
    private func planUpdate(_ change: SaveUnit.Change, _ current: ObjectView, materializing: Bool, policy: MergePolicy,
                            into received: inout ReceivedSave, conflicts: inout [MergeConflict]) -> SaveUnit.Change? {
        if current.isGone {
            guard policy == .error else {
                received.childTakes[change.id] = .some(nil)
                return nil
            }
            conflicts.append(MergeConflict(objectID: change.id, deletedElsewhere: true, expectedVersion: 0,
                                           foundVersion: nil, properties: []))
            return nil
        }
        var merged = current.values, base = current.base
        var clashes: [MergeConflict.PropertyConflict] = []
        for (i, property) in change.entity.properties.enumerated()
        where i < merged.count && i < change.values.count && i < change.base.count {
            let ours = change.values[i]
            if case .relationship(let r) = property, r.isToMany {
                let ordered = r.cardinality == .orderedToMany
                guard PropertyMerge.changedByUs(base: change.base[i], ours: ours, ordered: ordered) else { continue }
                var theirs = merged[i]
                if case .unloaded = theirs, materializing, let object = current.object {
                    theirs = .references(loadToMany(of: object, at: i))
                    if case .unloaded = base[i] { base[i] = theirs }
                }
                if case .unloaded = theirs, i < base.count {
                    // Not loaded here: the change goes on as the child made it, diff and all.
                    merged[i] = ours
                    base[i] = change.base[i]
                } else {
                    merged[i] = PropertyMerge.mergedToMany(base: change.base[i], ours: ours, theirs: theirs,
                                                           isOrdered: ordered)
                }
                continue
            }
            let outcome = PropertyMerge.resolve(base: change.base[i], ours: ours, theirs: current.values[i], policy: policy)
            merged[i] = outcome.value
            if outcome.isConflict {
                clashes.append(.init(property: property.name, base: change.base[i], ours: ours, theirs: current.values[i]))
            }
        }
        if !clashes.isEmpty {
            switch policy {
            case .error:
                conflicts.append(MergeConflict(objectID: change.id, deletedElsewhere: false, expectedVersion: 0,
                                               foundVersion: nil, properties: clashes))
                return nil
            case .rollback:
                received.childTakes[change.id] = .some(current.values)
                return nil
            case .mergeByPropertyStoreTrump:
                received.childTakes[change.id] = .some(merged)
            case .mergeByPropertyObjectTrump, .overwrite:
                break
            }
        }
        let id = received.canonical(change.id, current)
        received.before[id] = current.values
        received.merged[id] = merged
        if current.isInserted {
            return .init(id: id, entity: change.entity, kind: .insert, values: merged, base: [], version: 0)
        }
        return .init(id: id, entity: change.entity, kind: .update, values: merged, base: base, version: current.version)
    }

    /// This context's own unsaved inserts that `changes` refer to (and those they refer to):
    /// saved with them, so nothing written refers to an object that is not. They are
    /// validated here, as their own save would.
    private func ownInsertsReferenced(by changes: [SaveUnit.Change], into received: inout ReceivedSave,
                                      holding held: inout [ManagedObject],
                                      failures: inout [ValidationFailure]) -> [SaveUnit.Change] {
        guard pending.hasInserts else { return [] }
        var included = Set(changes.map(\.id))
        var queue = changes.flatMap { Self.references(in: $0.values) }
        var pulled: [SaveUnit.Change] = []
        while let id = queue.popLast() {
            guard !included.contains(id), let object = registeredObject(for: id), object.isInsertedFlag,
                  !object.isDeletedFlag, !included.contains(object.objectID) else { continue }
            included.formUnion([id, object.objectID])
            held.append(object)
            received.before[object.objectID] = object.values
            failures += Validator.validate(object, context: self)
            pulled.append(.init(id: object.objectID, entity: object.entity, kind: .insert, values: object.values,
                                base: [], version: 0))
            queue.append(contentsOf: Self.references(in: object.values))
        }
        return pulled
    }

    /// The declared constraints of merged values that differ from what the child validated
    /// (this context's own edits of the object come along): every save validates what it
    /// writes.
    private func validateMerged(_ merged: SaveUnit.Change, madeFrom change: SaveUnit.Change) -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        for (i, property) in change.entity.properties.enumerated()
        where i < merged.values.count && i < change.values.count && merged.values[i] != change.values[i] {
            switch property {
            case .attribute(let a) where !a.constraints.isEmpty:
                failures += Validator.check(merged.values[i], attribute: a, objectID: merged.id)
            case .relationship(let r) where !r.isToMany && r.isRequired && merged.values[i].isNull:
                failures.append(ValidationFailure(code: .missingMandatoryProperty, objectID: merged.id, property: r.name,
                                                  message: "\(r.name) is required."))
            default:
                break
            }
        }
        return failures
    }

    static func references(in values: [StoredValue]) -> [ObjectID] {
        var ids: [ObjectID] = []
        for value in values {
            switch value {
            case .reference(let id): ids.append(id)
            case .references(let list): ids.append(contentsOf: list)
            default: break
            }
        }
        return ids
    }

    /// Plans `incoming` without changing anything here (a save passing through).
    func plan(_ incoming: SaveUnit) throws -> ReceivedSave {
        var held: [ManagedObject] = []
        return try plan(incoming, materializing: false, holding: &held)
    }

    /// Plans `incoming` and applies it: the child's inserts, merged updates and deletes
    /// become this context's pending changes. One step: nothing changes if planning throws.
    func receive(_ incoming: SaveUnit) throws -> ReceivedSave {
        var held: [ManagedObject] = []
        let received = try plan(incoming, materializing: true, holding: &held)
        withExtendedLifetime(held) { apply(incoming, received) }
        return received
    }

    /// Applies a planned save. Call it in the block that planned it, with the planned
    /// objects still held.
    private func apply(_ incoming: SaveUnit, _ received: ReceivedSave) {
        for change in incoming.changes where change.kind == .insert {
            let object = registeredObject(for: change.id) ?? makeFault(change.id, entity: change.entity)
            object.values = change.values
            object.baseValues = change.values
            object.lifecycle = .loaded
            if !object.isInsertedFlag { insert(object) }
        }
        for (id, values) in received.merged {
            guard let object = registeredObject(for: id), values != object.values else { continue }
            object.values = values
            objectDidChange(object)
        }
        for change in incoming.changes where change.kind == .delete {
            if let object = try? object(with: change.id) { delete(object) }
        }
        processPendingChanges()
    }
}
