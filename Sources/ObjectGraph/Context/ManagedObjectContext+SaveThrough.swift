import Foundation

/// Saving a child's changes through its ancestors as one unit: all the way or nowhere.
///
/// Core Data's nested saves go one level at a time: a child saves into its parent, the
/// parent into its own, and the root to the store. When the root's save then fails (another
/// process changed the row, the file is busy), the change sits in every ancestor with nothing
/// to undo it, and every later save of those ancestors meets it again. A save through works
/// the other way round:
///
/// 1. The child hands its changes up as a value (``SaveUnit``); it changes nothing yet.
/// 2. Each ancestor plans them against its own state, on its own queue (merge, conflicts, and
///    at the first one uniqueness): nothing changes there either.
/// 3. The top (the root writing to the store, or the ancestor named in ``save(into:)``) plans
///    and commits in one block of its queue.
/// 4. Only then does each context, from the top down to the child, take the saved values.
///
/// A failure anywhere before step 4 therefore leaves every ancestor exactly as it was, and the
/// main queue is never held while the store writes.
extension ManagedObjectContext {
    /// Saves this context's changes through every ancestor and the root's store write as one
    /// unit.
    ///
    /// When it returns, the changes are in the store, and every ancestor holds the saved
    /// values with nothing pending for those objects (an ancestor's other unsaved changes stay
    /// pending; its unsaved inserts the changes refer to are saved with them). Temporary IDs
    /// are permanent everywhere.
    ///
    /// On any failure (validation, uniqueness, a conflict in any ancestor or with the store,
    /// the store busy past its timeout, an I/O or constraint error), no ancestor has changed,
    /// the store holds nothing of it, and this context keeps all its changes; the typed
    /// ``SaveError`` is thrown. After a conflict, the ancestors' copies of the conflicting
    /// objects are refreshed from where the conflict was found (the store, or the ancestor
    /// holding the other change), so a retry resolves against what is really there. This
    /// context keeps the values it read as its base, so a retry with `.error` reports the
    /// conflict again until the merge policy, or new values, settle it.
    ///
    /// Saves through to the store from contexts of one root run one after another, in the
    /// order they are called, and never interleave: the second plans against what the first
    /// saved. A root context's `saveToStore()` is its ``save()``.
    ///
    /// ```swift
    /// let form = main.newChildContext(name: "form")
    /// try await form.perform { Client(context: form).name = "Acme" }
    /// try await form.saveToStore()      // form → main → writer → store, or nowhere
    /// ```
    public func saveToStore() async throws {
        guard parent != nil else { return try await save() }
        try await root.saveThroughGate.run { try await self.saveThrough(to: nil) }
    }

    /// Saves this context's changes into `ancestor`, through the contexts between, as one
    /// unit: they become `ancestor`'s unsaved changes, and the contexts between hold them as
    /// saved. On any failure nothing has changed in any of them, and this context keeps its
    /// changes (as with ``saveToStore()``, which it shares its ordering with).
    ///
    /// The deferred-save pattern: a form saves into the writer, which writes to the store on
    /// its own schedule.
    /// - Throws: ``SaveError``; ``ContextError/notAnAncestor(_:)`` when `ancestor` is not one.
    public func save(into ancestor: ManagedObjectContext) async throws {
        var context = parent
        while let current = context, current !== ancestor { context = current.parent }
        guard context != nil else { throw ContextError.notAnAncestor(ancestor.name ?? "\(ancestor)") }
        try await root.saveThroughGate.run { try await self.saveThrough(to: ancestor) }
    }

    /// One context between the saving child and the top, with what it planned.
    private struct PlannedLevel: Sendable {
        let context: ManagedObjectContext
        let received: ReceivedSave
    }

    private func saveThrough(to target: ManagedObjectContext?) async throws {
        guard let taken = try await perform(schedule: .enqueued, { () throws -> TakenChanges? in
            try self.takeChangesForSaveThrough()
        }) else { return }
        let top = target ?? root
        var levels: [ManagedObjectContext] = []
        var context = parent
        while let current = context, current !== top {
            levels.append(current)
            context = current.parent
        }
        var planned: [PlannedLevel] = []
        var outcome: SettledSave
        do {
            planned = try await plan(taken.unit, in: levels)
            outcome = try await commit(planned.last?.received.outgoing ?? taken.unit, at: top, toStore: target == nil,
                                       savedBy: levels.last ?? self, origin: self)
        } catch {
            if let conflict = error as? ConflictWithView { await refresh(planned, after: conflict) }
            await perform(schedule: .enqueued) { self.objectsBeingSaved.removeAll() }
            throw (error as? ConflictWithView)?.error ?? error
        }
        // Settle, top down: each context takes the saved values.
        for (index, level) in planned.enumerated().reversed() {
            let below: ManagedObjectContext = index == 0 ? self : planned[index - 1].context
            let settled = outcome, context = level.context, received = level.received
            outcome = await context.perform(schedule: .enqueued) {
                context.settle(received, settled, savedBy: below)
            }
        }
        let settled = outcome
        await perform(schedule: .enqueued) {
            self.finishSave(taken.unit, settled, before: taken.before, savedBy: nil)
            self.objectsBeingSaved.removeAll()
        }
    }

    /// Each context between the child and the top plans the save, bottom up, on its own
    /// queue; nothing changes yet. The first also checks uniqueness, so the child learns of a
    /// clash from its parent at once.
    /// - Throws: ``SaveError``; a conflict comes as ``ConflictWithView`` with the levels
    ///   planned so far to refresh (in `planned`, which the caller passes on).
    private func plan(_ unit: SaveUnit, in levels: [ManagedObjectContext]) async throws -> [PlannedLevel] {
        var planned: [PlannedLevel] = []
        var incoming = unit
        for (index, level) in levels.enumerated() {
            let unit = incoming, checksUniqueness = index == 0
            do {
                let received = try await level.perform(schedule: .enqueued) { () throws -> ReceivedSave in
                    NotificationCenter.default.post(name: Self.willSaveNotification, object: level)
                    return try level.rethrowingConflictsWithView {
                        if checksUniqueness { try level.checkUniqueness(ofIncoming: unit) }
                        return try level.plan(unit)
                    }
                }
                planned.append(PlannedLevel(context: level, received: received))
                incoming = received.outgoing
            } catch let conflict as ConflictWithView {
                await refresh(planned, after: conflict)
                throw conflict.error
            }
        }
        return planned
    }

    /// The top's block: uniqueness, plan and commit together (the store write, or the push
    /// into the ancestor a `save(into:)` names), so nothing can come between the last check
    /// and the write.
    private func commit(_ unit: SaveUnit, at top: ManagedObjectContext, toStore: Bool,
                        savedBy child: ManagedObjectContext, origin: ManagedObjectContext) async throws -> SettledSave {
        try await top.perform(schedule: .enqueued) { () throws -> SettledSave in
            NotificationCenter.default.post(name: Self.willSaveNotification, object: top)
            return try top.rethrowingConflictsWithView(refreshingFromStore: toStore) {
                try top.checkUniqueness(ofIncoming: unit)
                guard toStore else {
                    let received = try top.receive(unit)
                    let outcome = top.outcomeOfReceiving(unit, received)
                    top.notifyChildrenOfSave(inserted: outcome.inserted,
                                             updated: Set(outcome.saved.keys).subtracting(outcome.inserted),
                                             deleted: outcome.deleted, except: child)
                    return outcome
                }
                let received = try top.plan(unit)
                // History names who made the change: the context whose save this is (a form, an
                // import), not the root that happened to write it; the root's own author when it has none.
                let outcome = try top.writeToStore(received.outgoing, author: origin.transactionAuthor ?? top.transactionAuthor,
                                                   contextName: origin.name ?? top.name)
                top.persistentStoreCoordinator.recordPermanentIDs(outcome.permanentIDs)
                top.propagatePermanentIDs(outcome.permanentIDs)
                return top.settle(received, outcome, savedBy: child)
            }
        }
    }

    /// This context (between the child and the top, or the root after its store write) takes
    /// the saved values, and says what the contexts below must take: the saved values, or this
    /// context's own where its merge policy kept them, under the IDs they know the objects by.
    private func settle(_ received: ReceivedSave, _ outcome: SettledSave, savedBy child: ManagedObjectContext) -> SettledSave {
        finishSave(received.outgoing, outcome, before: received.before, savedBy: child,
                   cancelled: received.cancelledInserts)
        var below = outcome
        for (id, own) in received.aliases { below.permanentIDs[id] = outcome.finalID(own) }
        for (id, takes) in received.childTakes where outcome.saved[below.finalID(id)] == nil {
            if let values = takes {
                let object = registeredObject(for: id)
                below.saved[id] = RowSnapshot(values: object?.values ?? values, version: object?.rowVersion ?? 0)
                below.keptElsewhere.insert(id)
            } else {
                below.goneElsewhere.insert(id)
            }
        }
        return below
    }

    // MARK: Taking the child's changes

    private struct TakenChanges: Sendable {
        let unit: SaveUnit
        let before: [ObjectID: [StoredValue]]
    }

    private func takeChangesForSaveThrough() throws -> TakenChanges? {
        ConcurrencyDebug.checkIfEnabled(self, "saveToStore()")
        processPendingChanges()
        guard hasChanges else { return nil }
        NotificationCenter.default.post(name: Self.willSaveNotification, object: self)
        try validatePendingChanges()
        let unit = makeSaveUnit()
        for change in unit.changes { objectsBeingSaved[change.id] = registeredObject(for: change.id) }
        return TakenChanges(unit: unit, before: currentValues(of: unit))
    }

    // MARK: After a conflict

    /// A conflict, with the values of the conflicting objects as the context that found it
    /// holds them now (nil: gone), for the contexts below to refresh from.
    private struct ConflictWithView: Error {
        let error: SaveError
        let view: [ObjectID: RowSnapshot?]
    }

    /// Runs `body`; a merge conflict it throws comes out with this context's view of the
    /// conflicting objects, read first from the store when `refreshingFromStore` (a root whose
    /// store write found rows changed by another coordinator or process).
    private func rethrowingConflictsWithView<T>(refreshingFromStore: Bool = false, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch SaveError.mergeConflict(let conflicts) {
            var view: [ObjectID: RowSnapshot?] = [:]
            for id in Set(conflicts.map(\.objectID)) {
                let object = registeredObject(for: id)
                if refreshingFromStore, let entity = model.entity(of: id) {
                    let fresh = try? persistentStoreCoordinator.freshSnapshot(for: id, entity: entity)
                    if let object, object.lifecycle == .loaded, !object.isInsertedFlag {
                        if let fresh { refreshKeepingLocalEdits(object, from: fresh) } else { markDeletedElsewhere(object) }
                    }
                    view[id] = .some(object.flatMap { Self.view(of: $0) } ?? fresh)
                } else if let object, object.lifecycle == .loaded {
                    view[id] = .some(Self.view(of: object))
                } else {
                    // Not loaded here: what this context sees is what its source holds.
                    var unused: [ManagedObject] = []
                    let seen = self.view(of: id, materializing: false, holding: &unused)
                    if let seen, !seen.isGone { view[id] = .some(RowSnapshot(values: seen.values, version: seen.version)) }
                    else if seen?.isGone == true { view[id] = .some(nil) }
                }
            }
            throw ConflictWithView(error: .mergeConflict(conflicts), view: view)
        }
    }

    private static func view(of object: ManagedObject) -> RowSnapshot? {
        guard object.lifecycle == .loaded, !object.isDeletedElsewhereFlag, !object.isDeletedFlag else { return nil }
        return RowSnapshot(values: object.values, version: object.rowVersion)
    }

    /// The contexts that planned refresh the conflicting objects, top down, each from the
    /// view of the one above, so none keeps a base the conflict proved stale.
    private func refresh(_ planned: [PlannedLevel], after conflict: ConflictWithView) async {
        var view = conflict.view
        for level in planned.reversed() {
            let above = view, context = level.context
            view = await context.perform(schedule: .enqueued) { () -> [ObjectID: RowSnapshot?] in
                var mine: [ObjectID: RowSnapshot?] = [:]
                for (id, snapshot) in above {
                    guard let object = context.registeredObject(for: id), object.lifecycle == .loaded,
                          !object.isInsertedFlag else { mine[id] = .some(snapshot); continue }
                    if let snapshot { context.refreshKeepingLocalEdits(object, from: snapshot) } else {
                        context.markDeletedElsewhere(object)
                    }
                    mine[id] = .some(Self.view(of: object))
                }
                return mine
            }
        }
    }
}
