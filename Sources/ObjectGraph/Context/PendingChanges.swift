import Foundation

/// A context's unsaved changes, as one value: what its next save writes.
///
/// Owned by the context's queue. Pending objects are held strongly here, so an unsaved change
/// cannot vanish with the last outside reference to its object. Clearing goes through
/// ``removeAll()`` (rollback, reset, a save of everything) or ``remove(_:)`` (a save of some
/// objects: `saveToStore()` leaves an ancestor's other changes pending), so the collections
/// never disagree.
struct PendingChanges {
    /// Inserted objects by ID.
    private(set) var inserted: [ObjectID: ManagedObject] = [:]
    /// Inserted objects in insertion order (some may since be deleted or saved): saves write
    /// in this order, so primary keys follow it.
    private var insertionOrder: [ManagedObject] = []
    /// Objects whose properties changed (they may since have been changed back).
    private(set) var changed: [ObjectID: ManagedObject] = [:]
    /// Objects to delete (never ones inserted since the last save: those are simply forgotten).
    private(set) var deleted: [ObjectID: ManagedObject] = [:]
    /// Deleted objects whose delete rules have not run yet (they run at processPendingChanges).
    var deletesToPropagate: [ManagedObject] = []
    /// Objects changed since the last ObjectsDidChange notification.
    private(set) var unprocessed = UnprocessedChanges()

    var isEmpty: Bool { inserted.isEmpty && deleted.isEmpty && !changed.values.contains { $0.isUpdated } }

    /// The objects inserted and not deleted, in insertion order.
    var orderedInserts: [ManagedObject] {
        insertionOrder.filter { $0.isInsertedFlag && !$0.isDeletedFlag && inserted[$0.objectID] === $0 }
    }

    /// Updated objects: changed, not inserted, not deleted.
    var updates: [ManagedObject] { changed.values.filter { $0.isUpdated && !$0.isDeletedFlag } }

    /// How many inserts were noted since the changes were last cleared: a mark for
    /// ``insertions(since:)``.
    var insertionCount: Int { insertionOrder.count }

    /// The objects inserted after `mark` (some may since be deleted).
    func insertions(since mark: Int) -> ArraySlice<ManagedObject> { insertionOrder[min(mark, insertionOrder.count)...] }

    mutating func noteInsert(_ object: ManagedObject) {
        inserted[object.objectID] = object
        insertionOrder.append(object)
        unprocessed.note(object)
    }

    mutating func noteUpdate(_ object: ManagedObject) {
        changed[object.objectID] = object
        unprocessed.note(object)
    }

    mutating func noteDelete(_ object: ManagedObject) {
        deletesToPropagate.append(object)
        if object.isInsertedFlag {
            inserted[object.objectID] = nil
        } else {
            deleted[object.objectID] = object
        }
        unprocessed.note(object)
    }

    /// Forgets inserted objects that were deleted again before a save.
    mutating func dropDeletedInserts() {
        for (id, object) in inserted where object.isDeletedFlag { inserted[id] = nil }
    }

    /// Stops tracking `object` as changed (it was refreshed or its changes were dropped).
    mutating func forgetUpdate(of id: ObjectID) {
        changed[id] = nil
    }

    /// Moves an object's entries to its permanent ID.
    mutating func rekey(_ old: ObjectID, to permanent: ObjectID) {
        if let o = inserted.removeValue(forKey: old) { inserted[permanent] = o }
        if let o = changed.removeValue(forKey: old) { changed[permanent] = o }
        if let o = deleted.removeValue(forKey: old) { deleted[permanent] = o }
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
        inserted.removeAll()
        insertionOrder.removeAll()
        changed.removeAll()
        deleted.removeAll()
        deletesToPropagate.removeAll()
        _ = takeUnprocessed()
    }

    /// Forgets the pending changes of these objects only (a save of part of the changes):
    /// inserts and updates of `saved` objects that are clean now, deletions of `deleted` ones.
    /// An object edited or deleted again while the save was under way keeps that change.
    mutating func remove(_ saved: Set<ObjectID>, deleted deletions: Set<ObjectID> = []) {
        guard !saved.isEmpty || !deletions.isEmpty else { return }
        for id in saved {
            if let object = inserted[id], !object.isInsertedFlag { inserted[id] = nil }
            if let object = changed[id], !object.isUpdated { changed[id] = nil }
        }
        for id in deletions { deleted[id] = nil }
        insertionOrder.removeAll { !$0.isInsertedFlag || inserted[$0.objectID] !== $0 }
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
