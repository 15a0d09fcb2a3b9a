import Foundation

/// The changes one save carries up a chain of contexts, as values: for each object, what
/// happens to it and the values it had when the saving context read it.
///
/// A context makes one from its pending changes (``ManagedObjectContext/makeSaveUnit()``);
/// each ancestor it passes through plans it against its own state (merging, finding
/// conflicts) and passes on its own view of the same objects; the root turns it into a
/// store request. `Sendable`: it crosses queues, never holding a managed object.
struct SaveUnit: Sendable {
    struct Change: Sendable {
        enum Kind: Sendable { case insert, update, delete }

        let id: ObjectID
        let entity: EntityDescription
        let kind: Kind
        /// The object's values (empty for a delete).
        let values: [StoredValue]
        /// The values the change was made from: what the saving context read (updates only).
        let base: [StoredValue]
        /// The row version `base` was read at (0 for inserts).
        let version: Int64
    }

    /// Inserts in insertion order, then updates, then deletes.
    var changes: [Change] = []
    var policy: MergePolicy = .error

    var isEmpty: Bool { changes.isEmpty }
    var ids: Set<ObjectID> { Set(changes.map(\.id)) }
}

extension ManagedObjectContext {
    /// This context's pending changes as a save unit (on the context's queue).
    func makeSaveUnit() -> SaveUnit {
        var unit = SaveUnit(policy: mergePolicy)
        for object in pending.orderedInserts {
            unit.changes.append(.init(id: object.objectID, entity: object.entity, kind: .insert,
                                      values: object.values, base: [], version: 0))
        }
        for object in pending.updates {
            unit.changes.append(.init(id: object.objectID, entity: object.entity, kind: .update,
                                      values: object.values, base: object.baseValues, version: object.rowVersion))
        }
        for object in pending.deleted.values {
            unit.changes.append(.init(id: object.objectID, entity: object.entity, kind: .delete,
                                      values: [], base: [], version: object.rowVersion))
        }
        return unit
    }

    /// The current values of the unit's objects here: what ``finishSave(_:before:savedBy:)``
    /// compares with to find edits made while the save was under way.
    func currentValues(of unit: SaveUnit) -> [ObjectID: [StoredValue]] {
        var values: [ObjectID: [StoredValue]] = [:]
        for change in unit.changes {
            if let object = registeredObject(for: change.id), object.lifecycle == .loaded {
                values[change.id] = object.values
            }
        }
        return values
    }
}

extension SaveRequest {
    /// The store request for a unit as the root context sees it.
    init(_ unit: SaveUnit, author: String?, contextName: String?) {
        self.init()
        mergePolicy = unit.policy
        self.author = author
        self.contextName = contextName
        for change in unit.changes {
            switch change.kind {
            case .insert:
                inserts.append(.init(id: change.id, entity: change.entity.name, values: change.values))
            case .update:
                updates.append(.init(id: change.id, entity: change.entity.name, values: change.values,
                                     base: change.base, expectedVersion: change.version))
            case .delete where !change.id.isTemporaryID:
                deletes.append(.init(id: change.id, entity: change.entity.name, expectedVersion: change.version))
            case .delete:
                break
            }
        }
    }
}
