import Foundation

extension ManagedObjectContext {
    /// Posted at the end of a block that changed objects (on the context's queue).
    /// `userInfo` keys: ``ChangeKey``; values are `Set<ObjectID>`.
    public static let objectsDidChangeNotification = Notification.Name("ObjectGraph.ObjectsDidChange")
    /// Posted before a save with changes begins (on the context's queue).
    public static let willSaveNotification = Notification.Name("ObjectGraph.WillSave")
    /// Posted after a successful save with changes (on the context's queue). `userInfo`
    /// holds the saved objects' IDs (never objects, so observers on any queue are safe):
    /// `inserted` with the permanent IDs for a root save.
    public static let didSaveNotification = Notification.Name("ObjectGraph.DidSave")

    /// Keys of the notifications' `userInfo`.
    public enum ChangeKey: String, Sendable {
        case inserted, updated, deleted, refreshed, invalidated, invalidatedAll
    }

    func postObjectsDidChange(_ changes: UnprocessedChanges) {
        var inserted = Set<ObjectID>(), updated = Set<ObjectID>(), deleted = Set<ObjectID>()
        for object in changes.objects {
            object.isAwaitingNotification = false
            if object.isDeletedFlag {
                // An object inserted and deleted in one block was never there.
                if !object.isInsertedFlag { deleted.insert(object.objectID) }
            } else if object.isInsertedFlag {
                inserted.insert(object.objectID)
            } else {
                updated.insert(object.objectID)
            }
        }
        if inserted.isEmpty && updated.isEmpty && deleted.isEmpty { return }
        NotificationCenter.default.post(name: Self.objectsDidChangeNotification, object: self, userInfo: [
            ChangeKey.inserted.rawValue: inserted,
            ChangeKey.updated.rawValue: updated,
            ChangeKey.deleted.rawValue: deleted,
        ])
    }

    func postInvalidatedAll() {
        NotificationCenter.default.post(name: Self.objectsDidChangeNotification, object: self, userInfo: [
            ChangeKey.invalidatedAll.rawValue: true,
        ])
    }
}
