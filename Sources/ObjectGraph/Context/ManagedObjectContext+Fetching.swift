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
    /// and their rows land in the coordinator's row cache; so do the rows of the to-one
    /// destinations the request prefetches, one more query per relationship.
    /// - Throws: ``FetchError``.
    public func fetch<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [T] {
        ConcurrencyDebug.checkIfEnabled(self, "fetch(_:)")
        let objects = try fetchObjects(request)
        try prefetch(request.relationshipKeyPathsForPrefetching, of: objects)
        return objects
    }

    private func fetchObjects<T: ManagedObject>(_ request: FetchRequest<T>) throws -> [T] {
        processPendingChanges()
        let plan = try FetchPlan(request, model: model, dialect: persistentStoreCoordinator.dialect)
        let overlay = pendingOverlay(includingOwn: request.includesPendingChanges)
        let store = try storeForReading()
        if !plan.needsMemoryPass(overlay) {
            // Rows become objects as they are read, a batch at a time: no array of every row.
            var materializer = Materializer<T>(self)
            try read {
                try store.forEachBatch(plan.entity, join: plan.join, where: plan.condition, orderBy: plan.orderBy,
                                       limit: request.fetchLimit, offset: request.fetchOffset,
                                       batchSize: Materializer<T>.batchSize) { rows in
                    materializer.materialize(rows, overlay: overlay)
                }
            }
            return materializer.result
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
        let plan = try FetchPlan(request, model: model, dialect: persistentStoreCoordinator.dialect)
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
        let plan = try FetchPlan(request, model: model, dialect: persistentStoreCoordinator.dialect)
        let overlay = pendingOverlay(includingOwn: request.includesPendingChanges)
        if !plan.needsMemoryPass(overlay) && request.fetchLimit == nil && request.fetchOffset == 0 {
            let store = try storeForReading()
            return try read { try store.count(plan.entity, join: plan.join, where: plan.condition) }
        }
        return try fetch(request).count
    }

    private func storeForReading() throws -> any PersistentStore {
        do { return try persistentStoreCoordinator.requireStore() } catch let error as StoreError {
            throw FetchError.storeFailure(error)
        }
    }

    private func read<R>(_ body: () throws -> R) throws -> R {
        do { return try body() } catch let error as StoreError { throw FetchError.storeFailure(error) }
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
        var overlay = PendingOverlay()
        // Ancestors holding no changes have nothing to give: no hop onto their queues (the
        // main queue, for a page's reading context), which many reads at once would wait for.
        if let parent, parent.chainMayHavePendingChanges {
            overlay = parent.performAndWait { parent.pendingOverlay(includingOwn: true) }
        }
        if includingOwn { overlay.apply(ownPendingChanges()) }
        return overlay
    }

    /// Whether this context or an ancestor may hold unsaved changes (from any thread).
    var chainMayHavePendingChanges: Bool {
        var context: ManagedObjectContext? = self
        while let current = context {
            if current.mayHavePendingChanges.load(ordering: .acquiring) { return true }
            context = current.parent
        }
        return false
    }

    private func ownPendingChanges() -> PendingOverlay {
        var own = PendingOverlay()
        for object in pending.orderedInserts { own.values[object.objectID] = (object.entity.name, object.values, true) }
        for object in pending.updates { own.values[object.objectID] = (object.entity.name, object.values, false) }
        own.deleted = Set(pending.deleted.keys)
        return own
    }
}

