import ObjectGraph

/// The object IDs a save inserted, updated and deleted: what ``InvoicesStack/mergeImportSave(_:)``
/// brings into the other contexts. `Sendable`, so it crosses from the import context's queue.
public struct SavedChanges: Sendable, Hashable {
    public var inserted: Set<ObjectID>
    public var updated: Set<ObjectID>
    public var deleted: Set<ObjectID>

    public init(inserted: Set<ObjectID> = [], updated: Set<ObjectID> = [], deleted: Set<ObjectID> = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// Adds another save's changes.
    public mutating func formUnion(_ other: SavedChanges) {
        inserted.formUnion(other.inserted)
        updated.formUnion(other.updated)
        deleted.formUnion(other.deleted)
    }

    /// The form ObjectGraph's `mergeChanges(fromRemoteContextSave:into:)` takes.
    public var asChangeKeys: [ManagedObjectContext.ChangeKey: [ObjectID]] {
        [.inserted: Array(inserted), .updated: Array(updated), .deleted: Array(deleted)]
    }
}
