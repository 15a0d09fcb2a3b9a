import Foundation

/// Unsaved changes of some objects, taken out of a context as values: to show them, keep
/// them aside, or hand them to another context (``ManagedObjectContext/adopt(_:)``) with the
/// committed values they were made from, so that a save there meets whatever changed since
/// exactly as a save from the original context would have.
///
/// The deferred-save pattern uses it: when the writer's save to the store meets a conflict,
/// the conflicting objects' changes are taken out (``ManagedObjectContext/unsavedChanges(of:)``
/// and ``ManagedObjectContext/rollback(_:)``), the rest is saved, and the user resolves the
/// taken-out changes later in a scratchpad that adopts them.
public struct UnsavedChanges: Sendable {
    /// One object's change.
    public struct Change: Sendable {
        public enum Kind: String, Sendable, Hashable, Codable { case inserted, updated, deleted }

        public var objectID: ObjectID { change.id }
        public let kind: Kind
        /// Every property with its unsaved and committed value (empty for a deletion).
        public let properties: [InspectedProperty]
        /// The row version the committed values were read at (0 for an insertion).
        public var rowVersion: Int64 { change.version }

        /// The properties whose unsaved value differs from the committed one.
        public var changedProperties: [InspectedProperty] { properties.filter(\.isChanged) }

        let change: SaveUnit.Change
    }

    public let changes: [Change]
    public var isEmpty: Bool { changes.isEmpty }
    public var objectIDs: [ObjectID] { changes.map(\.objectID) }

    /// Some of the changes of another value (to keep or adopt one object's change alone).
    public init(_ changes: some Sequence<Change>) {
        self.changes = Array(changes)
    }

    init(_ unit: SaveUnit) {
        changes = unit.changes.map { change in
            let kind: Change.Kind
            switch change.kind {
            case .insert: kind = .inserted
            case .update: kind = .updated
            case .delete: kind = .deleted
            }
            var properties: [InspectedProperty] = []
            if change.kind != .delete {
                for (i, property) in change.entity.properties.enumerated() where i < change.values.count {
                    let value = change.values[i]
                    let base: StoredValue = change.kind == .insert ? .null : (i < change.base.count ? change.base[i] : .unloaded)
                    let isRelationship: Bool
                    if case .relationship = property { isRelationship = true } else { isRelationship = false }
                    let isChanged = change.kind == .insert ? !value.isNull : PropertyMerge.changedByUs(base: base, ours: value)
                    properties.append(InspectedProperty(name: property.name, value: InspectedValue(value),
                                                        committedValue: InspectedValue(base),
                                                        isRelationship: isRelationship, isChanged: isChanged))
                }
            }
            return Change(kind: kind, properties: properties, change: change)
        }
    }
}

extension ManagedObjectContext {
    /// This context's unsaved changes of the objects with these IDs, as values. Nothing
    /// changes here. Call it on the context's queue.
    public func unsavedChanges(of ids: Set<ObjectID>) -> UnsavedChanges {
        ConcurrencyDebug.checkIfEnabled(self, "unsavedChanges(of:)")
        processPendingChanges()
        var unit = makeSaveUnit()
        unit.changes.removeAll { change in
            !ids.contains(change.id) && !ids.contains(registeredObject(for: change.id)?.objectID ?? change.id)
        }
        return UnsavedChanges(unit)
    }

    /// Forgets the unsaved changes of the objects with these IDs, as ``rollback()`` does for
    /// all: updated objects take their committed values back, inserted ones are forgotten,
    /// deleted ones are restored. Other objects' changes stay. Call it on the context's queue.
    public func rollback(_ ids: Set<ObjectID>) {
        ConcurrencyDebug.checkIfEnabled(self, "rollback(_:)")
        processPendingChanges()
        var forgotten = Set<ObjectID>()
        for id in ids {
            guard let object = registeredObject(for: id) else { continue }
            if object.isInsertedFlag {
                object.isDeletedFlag = true
                registryLock.withLock { registry[object.objectID] = nil }
                retained[object.objectID] = nil
                object.managedObjectContext = nil
            } else {
                object.isDeletedFlag = false
                if object.lifecycle == .loaded { object.values = object.baseValues }
            }
            forgotten.insert(object.objectID)
        }
        pending.remove(forgotten)
        pending.dropDeletedInserts()
    }

    /// Makes `changes` (taken from another context of the same coordinator) this context's
    /// unsaved changes: inserted objects are inserted with their IDs, updated objects take the
    /// unsaved values on top of the committed values the change was made from, deleted
    /// objects are deleted; objects with nothing changed take the committed values the change
    /// read, and stay registered. A later save compares them with what this context's parent (or
    /// the store) holds then, so a change made meanwhile is a conflict, as it would have been
    /// for the original context. Call it on the context's queue.
    /// - Throws: ``ContextError`` when an object cannot be found here (a temporary ID of
    ///   another hierarchy, an entity not in the model).
    public func adopt(_ changes: UnsavedChanges) throws {
        ConcurrencyDebug.checkIfEnabled(self, "adopt(_:)")
        for item in changes.changes {
            let change = item.change
            switch change.kind {
            case .insert:
                let object = registeredObject(for: change.id) ?? makeFault(change.id, entity: change.entity)
                object.values = change.values
                object.baseValues = change.values
                object.lifecycle = .loaded
                object.isDeletedElsewhereFlag = false
                if !object.isInsertedFlag { insert(object) }
            case .update:
                let object = try object(with: change.id)
                if object.lifecycle == .fault { fulfillFault(object) }
                object.baseValues = change.base
                object.rowVersion = change.version
                object.values = change.values
                object.isDeletedElsewhereFlag = false
                // Nothing changed (an object a form only read, ``workingState(including:)``):
                // its base is adopted, and it stays out of the pending changes, held here so
                // that it is not released and read again with newer values.
                if change.values != change.base { objectDidChange(object) } else { retained[object.objectID] = object }
            case .delete:
                let object = try object(with: change.id)
                if object.lifecycle == .fault { fulfillFault(object) }
                object.rowVersion = change.version
                delete(object)
            }
        }
        processPendingChanges()
    }
}
