import Foundation

extension ManagedObjectContext {
    /// Registers fetched rows as objects (all of `rows`, as one batch after another).
    func materialize<T: ManagedObject>(_ rows: [(ObjectID, RowSnapshot)], as type: T.Type,
                                       overlay: PendingOverlay) -> [T] {
        var materializer = Materializer<T>(self)
        materializer.reserve(rows.count)
        for start in stride(from: 0, to: rows.count, by: Materializer<T>.batchSize) {
            materializer.materialize(rows[start..<min(rows.count, start + Materializer<T>.batchSize)], overlay: overlay)
        }
        return materializer.result
    }

    /// Turns fetched rows into registered objects, a batch at a time: the registry is searched
    /// for a batch's rows under one lock, and its new objects registered, and their rows put
    /// in the row cache (held by the objects filled from them), under one lock each. A fetch
    /// of N rows costs a few table look-ups per row, not a lock per row, and its bookkeeping
    /// never holds more than a batch.
    struct Materializer<T: ManagedObject> {
        static var batchSize: Int { 1024 }
        let context: ManagedObjectContext
        private let isRoot: Bool
        private let sameClass: Bool
        /// The objects so far, every one a `T`. Gathered untyped: `T` is not specialized
        /// here (fetches are generic across the module boundary), and appending to a `[T]`
        /// looked up the array's generic metadata for every row.
        private var objects: [ManagedObject] = []
        private var held: [(ObjectID, RowSnapshot)] = []
        private var cachedOnly: [(ObjectID, RowSnapshot)] = []
        private var created: [ManagedObject] = []

        init(_ context: ManagedObjectContext) {
            self.context = context
            isRoot = context.parent == nil
            sameClass = context.model.entity(for: T.self).map { $0.objectType == T.self } ?? false
        }

        /// The fetched objects, typed: one array made for all of them.
        var result: [T] {
            let objects = self.objects
            // Not for none: the standard library then writes the count into the one shared
            // empty array, a race with any other thread doing the same (ThreadSanitizer).
            guard !objects.isEmpty else { return [] }
            return [T](unsafeUninitializedCapacity: objects.count) { buffer, count in
                for object in objects {
                    buffer.initializeElement(at: count, to: unsafeDowncast(object, to: T.self))
                    count += 1
                }
            }
        }

        /// Room for `count` rows, made at once rather than by doubling.
        mutating func reserve(_ count: Int) {
            objects.reserveCapacity(count)
            context.registryLock.withLock { context.registry.reserveCapacity(context.registry.count + count) }
            if isRoot { context.persistentStoreCoordinator.rowCache.reserveHeld(count) }
        }

        /// Materializes a batch of rows, appending their objects to `result`.
        mutating func materialize(_ rows: ArraySlice<(ObjectID, RowSnapshot)>, overlay: PendingOverlay) {
            let context = self.context
            // Rows carry permanent IDs, which are never aliases: the registry alone answers.
            let existing: [ManagedObject?]? = context.registryLock.withLock {
                context.registry.isEmpty ? nil : rows.map { context.registry[$0.0]?.takeUnretainedValue() }
            }
            var objects = self.objects
            self.objects = []
            for (n, (id, row)) in zip(0..., rows) {
                guard let object = object(id, row, registered: existing?[n], overlay: overlay) else { continue }
                if sameClass || object is T { objects.append(object) }
            }
            self.objects = objects
            flush()
        }

        private mutating func object(_ id: ObjectID, _ row: RowSnapshot, registered: ManagedObject?,
                                     overlay: PendingOverlay) -> ManagedObject? {
            guard let entity = context.model.entity(of: id) else { return nil }
            if !overlay.values.isEmpty, let pending = overlay.values[id] {
                if !isRoot { cachedOnly.append((id, row)) }
                return context.materialize(id, entity: entity, pendingValues: pending.values)
            }
            if let registered {
                let refill = registered.lifecycle == .fault || (!registered.hasChanges && row.version > registered.rowVersion)
                if refill { context.fill(registered, with: row, retainingRow: false) }
                if isRoot && refill && !registered.holdsRowCacheEntry {
                    registered.holdsRowCacheEntry = true
                    held.append((id, row))
                } else {
                    cachedOnly.append((id, row))
                }
                return registered
            }
            let state = ThreadState.current
            state.reset()
            state.mode = .materializing
            let fresh = entity.objectType.init(Materialization(kind: .fault(id, context, entity)))
            context.fill(fresh, with: row, retainingRow: false)
            if isRoot {
                fresh.holdsRowCacheEntry = true
                held.append((id, row))
            } else {
                cachedOnly.append((id, row))
            }
            created.append(fresh)
            return fresh
        }

        private mutating func flush() {
            let context = self.context
            if !created.isEmpty {
                context.registryLock.withLock { context.registry.register(created) }
                if context.retainsRegisteredObjects { for object in created { context.retained[object.objectID] = object } }
            }
            if isRoot {
                context.persistentStoreCoordinator.rowCache.storeHeld(held)
                if !cachedOnly.isEmpty { context.persistentStoreCoordinator.rowCache.store(cachedOnly) }
            } else {
                // A child's rows are the store's too: its ancestors fault them from the cache
                // when the child saves into them.
                context.persistentStoreCoordinator.rowCache.store(cachedOnly)
            }
            created.removeAll(keepingCapacity: true)
            held.removeAll(keepingCapacity: true)
            cachedOnly.removeAll(keepingCapacity: true)
        }
    }
}
