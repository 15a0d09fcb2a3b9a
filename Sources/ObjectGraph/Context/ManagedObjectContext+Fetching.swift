import Foundation

/// Unsaved changes of a context and its ancestors, as a fetch must see them.
struct PendingOverlay {
    /// Inserted and updated objects' current values.
    var values: [ObjectID: (entity: String, values: [StoredValue], inserted: Bool)] = [:]
    var deleted: Set<ObjectID> = []
    var isEmpty: Bool { values.isEmpty && deleted.isEmpty }

    func touches(_ entity: String) -> Bool {
        values.values.contains { $0.entity == entity } || deleted.contains { $0.entityName == entity }
    }

    /// Layers `other` (a descendant's changes) on top.
    mutating func apply(_ other: PendingOverlay) {
        for (id, v) in other.values { values[id] = v; deleted.remove(id) }
        for id in other.deleted { values[id] = nil; deleted.insert(id) }
    }
}

extension ManagedObjectContext {
    /// Fetches the objects a request describes, registered in this context.
    ///
    /// Unsaved changes count (unless `includesPendingChanges` is false): matching inserts
    /// are included, pending deletes excluded, pending updates re-evaluated. A fetch never
    /// overwrites unsaved edits of registered objects. Fetching N objects runs one query,
    /// and their rows land in the coordinator's row cache.
    /// - Throws: ``FetchError``.
    public func fetch<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [T] {
        ConcurrencyDebug.checkIfEnabled(self, "fetch(_:)")
        processPendingChanges()
        let plan = try FetchPlan(request, model: model)
        let overlay = pendingOverlay(includingOwn: request.includesPendingChanges)
        let store = try storeForReading()
        if !plan.needsMemoryPass(overlay) {
            let rows = try read { try store.fetchRows(plan.entity, join: plan.join, where: plan.condition, orderBy: plan.orderBy,
                                                        limit: request.fetchLimit, offset: request.fetchOffset) }
            return materialize(rows, as: T.self, overlay: overlay)
        }
        var ranks: [ObjectID: Double] = [:]
        let rows: [(ObjectID, RowSnapshot)]
        if plan.sortsByRank, let search = plan.search {
            let ranked = try read { try store.fetchRankedRows(plan.entity, join: plan.join, where: plan.condition,
                                                                rank: search.rank) }
            rows = ranked.map { ($0.id, $0.row) }
            for row in ranked { ranks[row.id] = row.rank }
        } else {
            rows = try read { try store.fetchRows(plan.entity, join: plan.join, where: plan.condition, orderBy: nil,
                                                  limit: nil, offset: 0) }
        }
        var candidates = materialize(rows, as: T.self, overlay: overlay)
        var seen = Set(candidates.map(\.objectID))
        for (id, pending) in overlay.values where pending.entity == plan.entity.name && !seen.contains(id) {
            if let object = materialize(id, entity: plan.entity, pendingValues: pending.values) as? T {
                candidates.append(object)
                seen.insert(id)
            }
        }
        candidates.removeAll { overlay.deleted.contains($0.objectID) || $0.isDeletedFlag }
        if let predicate = request.predicate {
            candidates = candidates.filter { (try? predicate.evaluate($0)) ?? false }
        }
        if let search = plan.search {
            let stored = Dictionary(rows, uniquingKeysWith: { first, _ in first })
            candidates = candidates.filter { object in
                Self.matchesPendingSearch(object.objectID, search: search, overlay: overlay, stored: stored, ranks: &ranks)
            }
        }
        if plan.sortsByRank || !request.sortDescriptors.isEmpty {
            Self.sort(&candidates, by: request, ranks: plan.sortsByRank ? ranks : nil)
        }
        let start = min(max(0, request.fetchOffset), candidates.count)
        let end = request.fetchLimit.map { min(candidates.count, start + max(0, $0)) } ?? candidates.count
        return Array(candidates[start..<end])
    }

    /// Whether an object a search fetch gathered matches: one whose values are as stored
    /// matched in SQL; one with pending values is matched in memory by the index's rules.
    /// A pending object whose searchable text differs from its stored row loses its rank
    /// (bm25 scored the old text), so that it sorts first.
    private static func matchesPendingSearch(_ id: ObjectID, search: FetchPlan.Search, overlay: PendingOverlay,
                                             stored: [ObjectID: RowSnapshot], ranks: inout [ObjectID: Double]) -> Bool {
        guard let pending = overlay.values[id] else { return true }
        let indices = search.columnIndices
        let texts = indices.map { index -> String in
            if case .string(let text) = pending.values[index] { return text } else { return "" }
        }
        guard search.query.matches(texts) else { return false }
        if let row = stored[id], indices.allSatisfy({ row.values[$0] == pending.values[$0] }) { return true }
        ranks[id] = nil
        return true
    }

    /// Sorts objects gathered in memory: by rank first when `ranks` is given (objects without
    /// one first), then by the request's sort descriptors, then by primary key.
    private static func sort<T: ManagedObject>(_ objects: inout [T], by request: FetchRequest<T>, ranks: [ObjectID: Double]?) {
        let descriptors = request.sortDescriptors
        let foldsCase = request.sortsStringsCaseInsensitively
        objects.sort { a, b in
            if let ranks {
                let (x, y) = (ranks[a.objectID] ?? -.infinity, ranks[b.objectID] ?? -.infinity)
                if x != y { return x < y }
            }
            for d in descriptors {
                switch compare(a, b, by: d, foldingCase: foldsCase) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return FetchPlan.tieBreak(a.objectID, b.objectID, descending: descriptors.last?.order == .reverse)
        }
    }

    /// One sort descriptor's order of two objects; with `foldingCase`, strings compare as
    /// SQLite's NOCASE does (ASCII letters folded), so memory and SQL sorts agree.
    static func compare<T>(_ a: T, _ b: T, by descriptor: SortDescriptor<T>, foldingCase: Bool) -> ComparisonResult {
        guard foldingCase, let keyPath = descriptor.keyPath,
              let x = a[keyPath: keyPath] as? String?, let y = b[keyPath: keyPath] as? String? else {
            return descriptor.compare(a, b)
        }
        func folded(_ s: String?) -> [UInt8]? {
            s.map { Array($0.utf8).map { (65...90).contains($0) ? $0 + 32 : $0 } }
        }
        let (l, r) = (folded(x), folded(y))
        let ascending: ComparisonResult
        switch (l, r) {
        case (nil, nil): ascending = .orderedSame
        case (nil, _): ascending = .orderedAscending
        case (_, nil): ascending = .orderedDescending
        case let (l?, r?): ascending = l == r ? .orderedSame : (l.lexicographicallyPrecedes(r) ? .orderedAscending : .orderedDescending)
        }
        if descriptor.order == .forward || ascending == .orderedSame { return ascending }
        return ascending == .orderedAscending ? .orderedDescending : .orderedAscending
    }

    /// The IDs of the objects a request describes, without loading them when no pending
    /// change is involved.
    public func fetchObjectIDs<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [ObjectID] {
        ConcurrencyDebug.checkIfEnabled(self, "fetchObjectIDs(_:)")
        processPendingChanges()
        let plan = try FetchPlan(request, model: model)
        let overlay = pendingOverlay(includingOwn: request.includesPendingChanges)
        if !plan.needsMemoryPass(overlay) {
            let store = try storeForReading()
            return try read { try store.fetchIDs(plan.entity, join: plan.join, where: plan.condition, orderBy: plan.orderBy,
                                                   limit: request.fetchLimit, offset: request.fetchOffset) }
        }
        return try fetch(request).map(\.objectID)
    }

    /// How many objects a request would fetch.
    public func count<T: ManagedObject>(for request: FetchRequest<T>) throws -> Int {
        ConcurrencyDebug.checkIfEnabled(self, "count(for:)")
        processPendingChanges()
        let plan = try FetchPlan(request, model: model)
        let overlay = pendingOverlay(includingOwn: request.includesPendingChanges)
        if !plan.needsMemoryPass(overlay) && request.fetchLimit == nil && request.fetchOffset == 0 {
            let store = try storeForReading()
            return try read { try store.count(plan.entity, join: plan.join, where: plan.condition) }
        }
        return try fetch(request).count
    }

    private func storeForReading() throws -> SQLiteStore {
        do { return try persistentStoreCoordinator.requireStore() } catch let error as StoreError {
            throw FetchError.storeFailure(error)
        }
    }

    private func read<R>(_ body: () throws -> R) throws -> R {
        do { return try body() } catch let error as StoreError { throw FetchError.storeFailure(error) }
    }

    /// Registers the fetched rows as objects. The registry is searched for all rows under one
    /// lock; new objects go into the registry, and their rows into the row cache (held by
    /// the objects filled from them), a batch at a time under one lock each: a fetch of N
    /// rows costs a few table look-ups per row, not a lock per row, and its bookkeeping never
    /// holds more than a batch beside the rows.
    private func materialize<T: ManagedObject>(_ rows: [(ObjectID, RowSnapshot)], as type: T.Type,
                                               overlay: PendingOverlay) -> [T] {
        let isRoot = parent == nil
        let sameClass = model.entity(for: T.self).map { $0.objectType == T.self } ?? false
        var result: [T] = []
        result.reserveCapacity(rows.count)
        var batch = MaterializedBatch()
        // Rows carry permanent IDs, which are never aliases: the registry alone answers.
        let existing: [ManagedObject?]? = registryLock.withLock {
            if registry.isEmpty { registry.reserveCapacity(rows.count); return nil }
            return rows.map { registry[$0.0]?.takeUnretainedValue() }
        }
        if isRoot && existing == nil { persistentStoreCoordinator.rowCache.reserveHeld(rows.count) }
        for (n, (id, row)) in rows.enumerated() {
            guard let entity = model.entity(of: id) else { continue }
            let object: ManagedObject
            if !overlay.values.isEmpty, let pending = overlay.values[id] {
                object = materialize(id, entity: entity, pendingValues: pending.values)
            } else if let registered = existing?[n] {
                let refill = registered.lifecycle == .fault || (!registered.hasChanges && row.version > registered.rowVersion)
                if refill { fill(registered, with: row, retainingRow: false) }
                if isRoot {
                    if refill && !registered.holdsRowCacheEntry {
                        registered.holdsRowCacheEntry = true
                        batch.held.append((id, row))
                    } else {
                        batch.cachedOnly.append((id, row))
                    }
                }
                object = registered
            } else {
                let state = ThreadState.current
                state.reset()
                state.mode = .materializing
                let fresh = entity.objectType.init(Materialization(kind: .fault(id, self, entity)))
                fill(fresh, with: row, retainingRow: false)
                if isRoot {
                    fresh.holdsRowCacheEntry = true
                    batch.held.append((id, row))
                }
                batch.created.append(fresh)
                object = fresh
            }
            if sameClass {
                result.append(unsafeDowncast(object, to: T.self))
            } else if let typed = object as? T {
                result.append(typed)
            }
            if batch.isFull { flush(&batch, isRoot: isRoot) }
        }
        flush(&batch, isRoot: isRoot)
        if !isRoot {
            // A child's rows are the store's too: its ancestors fault them from the cache
            // when the child saves into them.
            persistentStoreCoordinator.rowCache.store(rows)
        }
        return result
    }

    /// What a fetch registers and caches, a batch at a time.
    private struct MaterializedBatch {
        var held: [(ObjectID, RowSnapshot)] = []
        var cachedOnly: [(ObjectID, RowSnapshot)] = []
        var created: [ManagedObject] = []
        var isFull: Bool { created.count + held.count + cachedOnly.count >= 3 * 1024 }
    }

    private func flush(_ batch: inout MaterializedBatch, isRoot: Bool) {
        if !batch.created.isEmpty {
            registryLock.withLock {
                for object in batch.created { registry[object.objectID] = Unmanaged.passUnretained(object) }
            }
            if retainsRegisteredObjects { for object in batch.created { retained[object.objectID] = object } }
        }
        if isRoot {
            persistentStoreCoordinator.rowCache.storeHeld(batch.held)
            if !batch.cachedOnly.isEmpty { persistentStoreCoordinator.rowCache.store(batch.cachedOnly) }
        }
        batch.created.removeAll(keepingCapacity: true)
        batch.held.removeAll(keepingCapacity: true)
        batch.cachedOnly.removeAll(keepingCapacity: true)
    }

    /// An object whose values come from an ancestor's unsaved changes.
    func materialize(_ id: ObjectID, entity: EntityDescription, pendingValues: [StoredValue]) -> ManagedObject {
        if let existing = registeredObject(for: id), existing.lifecycle == .loaded { return existing }
        let object = registeredObject(for: id) ?? makeFault(id, entity: entity)
        object.values = pendingValues
        object.baseValues = pendingValues
        object.lifecycle = .loaded
        return object
    }

    /// This context's unsaved changes (when `includingOwn`) over its ancestors'.
    func pendingOverlay(includingOwn: Bool) -> PendingOverlay {
        var overlay = parent.map { p in p.performAndWait { p.pendingOverlay(includingOwn: true) } } ?? PendingOverlay()
        if includingOwn { overlay.apply(ownPendingChanges()) }
        return overlay
    }

    private func ownPendingChanges() -> PendingOverlay {
        var own = PendingOverlay()
        for object in pending.orderedInserts { own.values[object.objectID] = (object.entity.name, object.values, true) }
        for object in pending.updates { own.values[object.objectID] = (object.entity.name, object.values, false) }
        own.deleted = Set(pending.deleted.keys)
        return own
    }
}

