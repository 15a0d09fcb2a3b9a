import Foundation

extension ManagedObjectContext {
    /// Reads, one query per relationship, the rows of the to-one destinations of `objects`
    /// along `keyPaths` that neither this context nor the coordinator's row cache has: they
    /// wait in the row cache's prefetch pool, and the faults that reach them need no query.
    ///
    /// Destinations this context has loaded, new objects and objects of another store are
    /// left alone; so is a destination an ancestor has changed, whose fault asks the
    /// ancestor first anyway.
    /// - Throws: ``FetchError/unsupportedPrefetch(_:)`` for a key path that is not a to-one
    ///   relationship of the objects' entity; ``FetchError/storeFailure(_:)``.
    func prefetch<T: ManagedObject>(_ keyPaths: [PartialKeyPath<T>], of objects: [T]) throws {
        guard !keyPaths.isEmpty, let entity = model.entity(for: T.self) else { return }
        for keyPath in keyPaths {
            let (index, destination) = try prefetchedRelationship(keyPath, of: entity)
            let keys = keysToPrefetch(index, of: objects)
            guard !keys.isEmpty else { continue }
            do {
                try persistentStoreCoordinator.prefetchRows(of: destination, primaryKeys: keys)
            } catch let error as StoreError {
                throw FetchError.storeFailure(error)
            }
        }
    }

    /// The property index of the to-one relationship `keyPath` names, and its destination.
    private func prefetchedRelationship<T: ManagedObject>(_ keyPath: PartialKeyPath<T>, of entity: EntityDescription)
        throws(FetchError) -> (Int, EntityDescription) {
        guard let path = model.propertyPath(for: keyPath, in: entity), path.count == 1,
              path[0].entityName == entity.name,
              case .relationship(let relationship) = entity.properties[path[0].index], !relationship.isToMany,
              let destination = model.entity(named: relationship.destinationEntityName) else {
            throw .unsupportedPrefetch("\(keyPath)")
        }
        return (path[0].index, destination)
    }

    /// The primary keys of the destinations at property `index` worth reading, each once.
    private func keysToPrefetch(_ index: Int, of objects: [some ManagedObject]) -> [Int64] {
        let cache = persistentStoreCoordinator.rowCache
        var keys: [Int64] = []
        var seen = Set<Int64>()
        for object in objects where object.lifecycle == .loaded && index < object.values.count {
            guard case .reference(let id) = object.values[index], let key = id.primaryKey,
                  !seen.contains(key) else { continue }
            if let registered = registeredObject(for: id), registered.lifecycle != .fault { continue }
            guard cache.snapshot(for: id) == nil else { continue }
            seen.insert(key)
            keys.append(key)
        }
        return keys
    }
}
