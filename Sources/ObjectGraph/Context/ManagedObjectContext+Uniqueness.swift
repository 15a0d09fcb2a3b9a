import Foundation

/// Uniqueness constraints checked at a nested context's save.
///
/// Core Data checks them only when the root context saves, so a form learns of a clash only
/// after its scratchpad's changes are already in the main context. Here a child's save checks
/// them against its own changes, its ancestors' unsaved changes and the store, so the
/// scratchpad is refused at once and the parent stays clean.
extension ManagedObjectContext {
    func checkUniqueness(of objects: [ManagedObject]) throws {
        let constrained = objects.filter { !$0.entity.uniquenessIndices.isEmpty && !$0.isDeletedFlag }
        guard !constrained.isEmpty else { return }
        let overlay = parent.map { p in p.performAndWait { p.pendingOverlay(includingOwn: true) } } ?? PendingOverlay()
        let store = try? persistentStoreCoordinator.requireStore()
        let ownIDs = Set(objects.map(\.objectID))

        for object in constrained {
            for group in object.entity.uniquenessIndices {
                let key = group.map { object.values[$0] }
                if key.contains(where: \.isNull) { continue }   // nil never clashes
                let names = group.map { object.entity.properties[$0].name }
                func clash() -> SaveError {
                    .uniquenessViolation(entity: object.entity.name, properties: names,
                                         message: zip(names, key).map { "\($0) \($1.displayString)" }.joined(separator: ", "))
                }
                // Among this save's objects.
                for other in constrained where other !== object && other.entity === object.entity
                    && group.map({ other.values[$0] }) == key {
                    throw clash()
                }
                // Among the ancestors' unsaved objects.
                for (id, pending) in overlay.values where id != object.objectID && !ownIDs.contains(id)
                    && pending.entity == object.entity.name && group.allSatisfy({ $0 < pending.values.count })
                    && group.map({ pending.values[$0] }) == key {
                    throw clash()
                }
                // In the store, unless the row is deleted or changed above us.
                guard let store, let table = store.tables[object.entity.name] else { continue }
                let condition = zip(group, key).map { index, _ in
                    "t0.\(SQLSchema.quote(object.entity.properties[index].name)) = ?"
                }.joined(separator: " AND ")
                let rows = (try? store.fetchIDs(object.entity, where: SQLFragment(condition, key), orderBy: nil,
                                                limit: nil, offset: 0)) ?? []
                _ = table
                for id in rows where id != object.objectID && !ownIDs.contains(id) && !overlay.deleted.contains(id) {
                    if let pending = overlay.values[id], group.map({ pending.values[$0] }) != key { continue }
                    throw clash()
                }
            }
        }
    }
}
