import Foundation

extension ManagedObjectContext {
    // MARK: Looking objects up

    /// The object with this ID: the registered instance, or a fault (no I/O).
    ///
    /// - Throws: ``ContextError/temporaryIDOutsideHierarchy(_:)`` for a temporary ID this
    ///   context's hierarchy does not know, ``ContextError/unknownEntity(_:)``.
    public func object(with id: ObjectID) throws -> ManagedObject {
        ConcurrencyDebug.checkIfEnabled(self, "object(with:)")
        if let object = registeredObject(for: id) { return object }
        if id.isTemporaryID && !ancestorsKnow(id) {
            throw ContextError.temporaryIDOutsideHierarchy(id)
        }
        guard let entity = model.entity(of: id) else {
            throw ContextError.unknownEntity(id.entityName)
        }
        return makeFault(id, entity: entity)
    }

    /// The object with this ID as `T`.
    public func object<T: ManagedObject>(with id: ObjectID, as type: T.Type) throws -> T {
        guard let object = try object(with: id) as? T else {
            throw ContextError.wrongEntity(id, expected: String(describing: T.self))
        }
        return object
    }

    /// The object with this ID, fully loaded.
    /// - Throws: ``ContextError/objectNotFound(_:)`` (CD 133000) when the row does not exist.
    public func existingObject(with id: ObjectID) throws -> ManagedObject {
        let object = try object(with: id)
        // A store that cannot be read now (a database server down) is an error here, not a
        // row deleted elsewhere: the object stays a fault, read again at its next use.
        if object.isFault { try fulfillFaultOrThrow(object) }
        if object.isDeletedElsewhereFlag || (object.isDeletedFlag && !object.isInsertedFlag) {
            throw ContextError.objectNotFound(id)
        }
        return object
    }

    /// The object with this ID as `T`, fully loaded.
    public func existingObject<T: ManagedObject>(with id: ObjectID, as type: T.Type) throws -> T {
        guard let object = try existingObject(with: id) as? T else {
            throw ContextError.wrongEntity(id, expected: String(describing: T.self))
        }
        return object
    }

    /// The object with this ID if this context has it registered; never a new fault, no I/O.
    public func registeredObject(for id: ObjectID) -> ManagedObject? {
        registryLock.withLock {
            if let u = registry[id] { return u.takeUnretainedValue() }
            if id.isTemporaryID, !aliases.isEmpty, let alias = aliases[id], let u = registry[alias] {
                return u.takeUnretainedValue()
            }
            return nil
        }
    }

    /// Every object registered in the context.
    public var registeredObjects: [ManagedObject] {
        registryLock.withLock { registry.values.map { $0.takeUnretainedValue() } }
    }

    /// Whether this context or an ancestor has an unsaved object with this temporary ID.
    func ancestorsKnow(_ id: ObjectID) -> Bool {
        var context = parent
        while let current = context {
            let known = current.performAndWait { current.registeredObject(for: id) != nil }
            if known { return true }
            context = current.parent
        }
        return false
    }

    // MARK: Registration

    func register(_ object: ManagedObject) {
        registryLock.withLock { registry[object.objectID] = Unmanaged.passUnretained(object) }
        if retainsRegisteredObjects { retained[object.objectID] = object }
    }

    /// Called from `ManagedObject.deinit`.
    func objectWillDeinit(_ object: ManagedObject) {
        let batch: [ObjectID]? = registryLock.withLock {
            if let removed = registry.removeValue(forKey: object.objectID),
               removed.toOpaque() != Unmanaged.passUnretained(object).toOpaque() {
                registry[object.objectID] = removed   // another instance took the ID (after reset)
            }
            guard object.holdsRowCacheEntry else { return nil }
            pendingRowReleases.append(object.objectID)
            guard pendingRowReleases.count >= 1024 else { return nil }
            defer { pendingRowReleases.removeAll(keepingCapacity: true) }
            return pendingRowReleases
        }
        if let batch { persistentStoreCoordinator.rowCache.release(batch) }
    }

    /// Releases the row cache entries of objects that went away (end of every block).
    func flushRowReleases() {
        let batch: [ObjectID] = registryLock.withLock {
            defer { pendingRowReleases.removeAll(keepingCapacity: true) }
            return pendingRowReleases
        }
        if !batch.isEmpty { persistentStoreCoordinator.rowCache.release(batch) }
    }

    /// Moves a registered object to its permanent ID, keeping the temporary one as an alias.
    func rekey(_ object: ManagedObject, to permanent: ObjectID) {
        rekey([(object, permanent)], movingPendingChanges: true)
    }

    /// Re-keys objects under one lock. `movingPendingChanges` is false when the pending
    /// dictionaries are about to be cleared anyway (after a root save). `aliasBatch`, the
    /// map the pairs come from, becomes the aliases in one step (else each pair is added).
    func rekey(_ pairs: [(ManagedObject, ObjectID)], movingPendingChanges: Bool,
               aliasBatch: [ObjectID: ObjectID]? = nil) {
        registryLock.withLock {
            for (object, permanent) in pairs where object.objectID != permanent {
                registry[object.objectID] = nil
                registry[permanent] = Unmanaged.passUnretained(object)
                if aliasBatch == nil { aliases.add(object.objectID, permanent) }
            }
            if let aliasBatch { aliases.add(batch: aliasBatch) }
        }
        for (object, permanent) in pairs where object.objectID != permanent {
            let old = object.objectID
            object.objectID = permanent
            if retainsRegisteredObjects, let o = retained.removeValue(forKey: old) { retained[permanent] = o }
            if movingPendingChanges { pending.rekey(old, to: permanent) }
        }
    }

    func makeFault(_ id: ObjectID, entity: EntityDescription) -> ManagedObject {
        let state = ThreadState.current
        state.reset()
        state.mode = .materializing
        let object = entity.objectType.init(Materialization(kind: .fault(id, self, entity)))
        register(object)
        return object
    }

    func fill(_ object: ManagedObject, with snapshot: RowSnapshot, retainingRow: Bool = true) {
        object.values = snapshot.values
        object.baseValues = snapshot.values
        object.rowVersion = snapshot.version
        object.lifecycle = .loaded
        object.isDeletedElsewhereFlag = false
        if retainingRow && !object.holdsRowCacheEntry && parent == nil && !object.objectID.isTemporaryID {
            persistentStoreCoordinator.rowCache.retain(object.objectID)
            object.holdsRowCacheEntry = true
        }
    }

    // MARK: Faults

    /// Loads a fault's values: from the parent chain for nested contexts, else from the row
    /// cache, else from the store. A row deleted elsewhere never traps: the object reports
    /// `isDeletedElsewhere` and keeps its last known (or default) values.
    func fulfillFault(_ object: ManagedObject) {
        do { try fulfillFaultOrThrow(object) } catch { markDeletedElsewhere(object) }
    }

    /// ``fulfillFault(_:)``, but a store that cannot be read throws its error and leaves the
    /// object a fault.
    func fulfillFaultOrThrow(_ object: ManagedObject) throws {
        guard object.lifecycle == .fault else { return }
        if ConcurrencyDebug.isEnabled { ConcurrencyDebug.check(object) }
        let snapshot: RowSnapshot?
        if let parent {
            snapshot = try parent.loadSnapshotForChild(object.objectID)
        } else {
            snapshot = try persistentStoreCoordinator.snapshot(for: object.objectID, entity: object.entity)
        }
        if let snapshot {
            fill(object, with: snapshot)
        } else {
            markDeletedElsewhere(object)
        }
    }

    func markDeletedElsewhere(_ object: ManagedObject) {
        if object.values.isEmpty {
            object.values = object.entity.properties.map {
                switch $0 {
                case .attribute(let a): return a.defaultValue
                case .relationship(let r): return r.isToMany ? .references([]) : .null
                }
            }
            object.baseValues = object.values
        }
        object.lifecycle = .loaded
        object.isDeletedElsewhereFlag = true
    }

    /// The values a child sees for `id`: this context's current values when it has the
    /// object loaded (unsaved edits included), nil when it deleted it, else the values from
    /// further up. Runs a brief hop onto this context's queue.
    func snapshotForChild(_ id: ObjectID) -> RowSnapshot? {
        try? loadSnapshotForChild(id)
    }

    /// ``snapshotForChild(_:)``, throwing when the store cannot be read.
    func loadSnapshotForChild(_ id: ObjectID) throws -> RowSnapshot? {
        try performAndWait { () throws -> RowSnapshot? in
            if let object = registeredObject(for: id), object.lifecycle == .loaded {
                if object.isDeletedFlag || object.isDeletedElsewhereFlag { return nil }
                return RowSnapshot(values: object.values, version: object.rowVersion)
            }
            if let parent { return try parent.loadSnapshotForChild(id) }
            guard let entity = model.entity(of: id) else { return nil }
            return try persistentStoreCoordinator.snapshot(for: id, entity: entity)
        }
    }
}

extension ObjectIDTable where Value == Unmanaged<ManagedObject> {
    /// Registers objects under their IDs in one access to the table.
    mutating func register(_ objects: [ManagedObject]) {
        for object in objects { self[object.objectID] = Unmanaged.passUnretained(object) }
    }
}

extension ConcurrencyDebug {
    static func checkIfEnabled(_ context: ManagedObjectContext, _ operation: StaticString) {
        if isEnabled { check(context, operation) }
    }
}
