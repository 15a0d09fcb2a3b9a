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
        NotificationCenter.default.post(name: Self.objectsDidChangeNotification, object: self, userInfo: [
            ChangeKey.inserted.rawValue: changes.inserted,
            ChangeKey.updated.rawValue: changes.updated.subtracting(changes.inserted),
            ChangeKey.deleted.rawValue: changes.deleted,
        ])
    }

    func postInvalidatedAll() {
        NotificationCenter.default.post(name: Self.objectsDidChangeNotification, object: self, userInfo: [
            ChangeKey.invalidatedAll.rawValue: true,
        ])
    }
}
