import Foundation

/// Uniqueness constraints checked when a child's save arrives.
///
/// Core Data checks them only when the root context saves, so a form learns of a clash only
/// after its scratchpad's changes are already in the main context. Here the context receiving
/// a child's save checks them against the save's own objects, its own and its ancestors'
/// unsaved changes, and the store, so the scratchpad is refused at once and the parent stays
/// clean. It runs in the same block of this context's queue as the push: two siblings saving
/// one value cannot both pass.
extension ManagedObjectContext {
    /// - Throws: ``SaveError/uniquenessViolation(_:)`` for the first clash found.
    func checkUniqueness(ofIncoming unit: SaveUnit) throws {
        let constrained = unit.changes.filter { $0.kind != .delete && !$0.entity.uniquenessIndices.isEmpty }
        guard !constrained.isEmpty else { return }
        let overlay = pendingOverlay(includingOwn: true)
        let store = try? persistentStoreCoordinator.requireStore()
        let unitIDs = unit.ids
        let deletedByUnit = Set(unit.changes.filter { $0.kind == .delete }.map(\.id))

        for change in constrained {
            for group in change.entity.uniquenessIndices where group.allSatisfy({ $0 < change.values.count }) {
                let key = group.map { change.values[$0] }
                if key.contains(where: \.isNull) { continue }   // nil never clashes
                let clash = SaveError.uniquenessViolation(UniquenessViolation(
                    entity: change.entity.name, properties: group.map { change.entity.properties[$0].name },
                    values: key.map(InspectedValue.init), objectID: change.id))
                // Among this save's objects.
                for other in constrained where other.id != change.id && other.entity === change.entity
                    && group.allSatisfy({ $0 < other.values.count }) && group.map({ other.values[$0] }) == key {
                    throw clash
                }
                // Among the unsaved objects here and above.
                for (id, pending) in overlay.values where !unitIDs.contains(id)
                    && pending.entity == change.entity.name && group.allSatisfy({ $0 < pending.values.count })
                    && group.map({ pending.values[$0] }) == key {
                    throw clash
                }
                // In the store, unless the row is deleted or changed here or above.
                guard let store else { continue }
                let condition = group.map { "t0.\(SQLSchema.quote(change.entity.properties[$0].name)) = ?" }
                    .joined(separator: " AND ")
                let rows: [ObjectID]
                do {
                    rows = try store.fetchIDs(change.entity, join: "", where: SQLFragment(condition, key), orderBy: nil,
                                              limit: nil, offset: 0)
                } catch let error as StoreError {
                    throw SaveError.storeFailure(error)
                }
                for id in rows where !unitIDs.contains(id) && !overlay.deleted.contains(id) && !deletedByUnit.contains(id) {
                    if let pending = overlay.values[id], group.map({ pending.values[$0] }) != key { continue }
                    throw clash
                }
            }
        }
    }
}
