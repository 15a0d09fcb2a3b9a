import Foundation

/// A context's unsaved changes, as one value: what its next save writes.
///
/// Owned by the context's queue. Pending objects are held strongly here, so an unsaved change
/// cannot vanish with the last outside reference to its object. Clearing goes through
/// ``removeAll()`` (rollback, reset, a save of everything) or ``remove(_:deleted:)`` (a save
/// of some objects: `saveToStore()` leaves an ancestor's other changes pending), so the
/// collections never disagree.
///
/// Inserts and updates are lists, not dictionaries by ID: noting a change costs an append
/// and a flag on the object, never a hash. An object is a pending insert while its flags say
/// so (inserted, not deleted); an entry whose object stopped being one (saved, deleted) stays
/// in the list until the next `remove` or `removeAll`, and every reader skips it.
struct PendingChanges {
    /// Inserted objects in insertion order (some may since be deleted or saved): saves write
    /// in this order, so primary keys follow it.
    private var insertionOrder: [ManagedObject] = []
    /// Objects whose properties changed (they may since have been changed back), each once
    /// (`ManagedObject.isListedAsChanged`); `isChangeNoted` is false for one forgotten since.
    private var changedList: [ManagedObject] = []
    /// Entries of `changedList` forgotten since it was last compacted.
    private var forgottenChanges = 0
    /// Objects to delete (never ones inserted since the last save: those are simply forgotten).
    private(set) var deleted: [ObjectID: ManagedObject] = [:]
    /// Deleted objects whose delete rules have not run yet (they run at processPendingChanges).
    var deletesToPropagate: [ManagedObject] = []
    /// Objects changed since the last ObjectsDidChange notification.
    private(set) var unprocessed = UnprocessedChanges()

    var isEmpty: Bool { !hasInserts && deleted.isEmpty && !changedList.contains { $0.isChangeNoted && $0.isUpdated } }

    /// Whether no object is listed at all: `isEmpty` without its walk over the lists (true
    /// here means empty; false may still be empty, with entries every reader skips).
    var holdsNothing: Bool { insertionOrder.isEmpty && changedList.isEmpty && deleted.isEmpty }

    /// Whether an object is inserted and not deleted.
    var hasInserts: Bool { insertionOrder.contains(where: Self.isPendingInsert) }

    /// The objects inserted and not deleted, in insertion order.
    var orderedInserts: [ManagedObject] { insertionOrder.filter(Self.isPendingInsert) }

    private static func isPendingInsert(_ object: ManagedObject) -> Bool { object.isInsertedFlag && !object.isDeletedFlag }

    /// Objects whose properties changed, changed back or not.
    var changed: [ManagedObject] { changedList.filter(\.isChangeNoted) }

    /// Updated objects: changed, not inserted, not deleted.
    var updates: [ManagedObject] { changedList.filter { $0.isChangeNoted && $0.isUpdated && !$0.isDeletedFlag } }

    /// How many inserts were noted since the changes were last cleared: a mark for
    /// ``insertions(since:)``.
    var insertionCount: Int { insertionOrder.count }

    /// The objects inserted after `mark` (some may since be deleted).
    func insertions(since mark: Int) -> ArraySlice<ManagedObject> { insertionOrder[min(mark, insertionOrder.count)...] }

    mutating func noteInsert(_ object: ManagedObject) {
        insertionOrder.append(object)
        unprocessed.note(object)
    }

    mutating func noteUpdate(_ object: ManagedObject) {
        if !object.isChangeNoted {
            object.isChangeNoted = true
            if object.isListedAsChanged { forgottenChanges -= 1 } else {
                object.isListedAsChanged = true
                changedList.append(object)
            }
        }
        unprocessed.note(object)
    }

    mutating func noteDelete(_ object: ManagedObject) {
        deletesToPropagate.append(object)
        if !object.isInsertedFlag { deleted[object.objectID] = object }
        unprocessed.note(object)
    }

    /// Inserted objects that were deleted again before a save are no pending inserts: their
    /// flags say so, and their entries go at the next compaction.
    mutating func dropDeletedInserts() {}

    /// Stops tracking `object` as changed (it was refreshed or its changes were dropped).
    mutating func forgetUpdate(of object: ManagedObject) {
        guard object.isChangeNoted else { return }
        object.isChangeNoted = false
        forgottenChanges += 1
        if forgottenChanges > 32 && forgottenChanges > changedList.count / 2 { compactChanges { _ in true } }
    }

    /// Drops the entries of forgotten changes, and those of objects `isForgotten` names.
    private mutating func compactChanges(_ isForgotten: (ManagedObject) -> Bool) {
        changedList.removeAll { object in
            let drop = !object.isChangeNoted || isForgotten(object)
            if drop {
                object.isChangeNoted = false
                object.isListedAsChanged = false
            }
            return drop
        }
        forgottenChanges = 0
    }

    /// Moves an object's entries to its permanent ID.
    mutating func rekey(_ old: ObjectID, to permanent: ObjectID) {
        if !deleted.isEmpty, let o = deleted.removeValue(forKey: old) { deleted[permanent] = o }
    }

    /// Takes the objects awaiting an ObjectsDidChange notification (their flags cleared).
    mutating func takeUnprocessed() -> UnprocessedChanges {
        let changes = unprocessed
        unprocessed = UnprocessedChanges()
        for object in changes.objects { object.isAwaitingNotification = false }
        return changes
    }

    /// Forgets every pending change: the one way a whole save, rollback or reset clears.
    mutating func removeAll() {
        removeAllSaved()
        _ = takeUnprocessed()
    }

    /// Forgets every pending change but keeps the objects awaiting notification: a root
    /// context's save, which wrote every change it had.
    mutating func removeAllSaved() {
        insertionOrder.removeAll()
        for object in changedList {
            object.isChangeNoted = false
            object.isListedAsChanged = false
        }
        changedList.removeAll()
        forgottenChanges = 0
        deleted.removeAll()
        deletesToPropagate.removeAll()
    }

    /// Forgets the pending changes of these objects only (a save of part of the changes):
    /// inserts and updates of `saved` objects that are clean now, deletions of `deleted` ones.
    /// An object edited or deleted again while the save was under way keeps that change.
    mutating func remove(_ saved: Set<ObjectID>, deleted deletions: Set<ObjectID> = []) {
        guard !saved.isEmpty || !deletions.isEmpty else { return }
        for id in deletions { deleted[id] = nil }
        // A saved insert is no longer flagged inserted; a deleted one no longer counts.
        insertionOrder.removeAll { !Self.isPendingInsert($0) }
        compactChanges { saved.contains($0.objectID) && !$0.isUpdated }
    }

    /// Marks a saved object deleted again: it was deleted while the save that wrote it was
    /// under way (its delete rules ran then), so its row goes at the next save.
    mutating func noteDeletedAfterSave(_ object: ManagedObject) {
        deleted[object.objectID] = object
        unprocessed.note(object)
    }
}

/// Changes not yet announced by an ObjectsDidChange notification. Objects are listed once
/// (`ManagedObject.isAwaitingNotification`); their IDs are collected only when posting, so a
/// block that changes many objects hashes each ID once.
struct UnprocessedChanges {
    var objects: [ManagedObject] = []
    var isEmpty: Bool { objects.isEmpty }

    mutating func note(_ object: ManagedObject) {
        guard !object.isAwaitingNotification else { return }
        object.isAwaitingNotification = true
        objects.append(object)
    }
}
