import Foundation

extension ManagedObjectContext {
    /// Runs an aggregate request and returns its rows, typed by the request's group keys and
    /// aggregates.
    ///
    /// ```swift
    /// let totals = try context.aggregate(AggregateRequest(
    ///     Invoice.self, groupBy: \.currency, computing: .sum(\.amount)))   // [(String, Decimal)]
    /// ```
    ///
    /// One query reads the group keys and aggregated attributes of the matching rows; the
    /// grouping and the arithmetic happen in Swift, so Decimal sums, extremes and averages
    /// are exact (``GroupTable`` says why this is also the faster way).
    ///
    /// Unsaved changes count as they do for fetches, unless `includesPendingChanges` is
    /// false: a matching unsaved insert is added, a pending delete left out, and an object
    /// with pending updates counts with its new values, in the group they put it in. The
    /// store's query leaves such objects out and they are added from memory, so the cost is
    /// that of the query plus the changed objects. When the request reads other entities
    /// (a group key through a to-one relationship, or a predicate that does) and one of
    /// them has unsaved changes, every object of the entity is fetched and evaluated in
    /// memory instead, since any of them may have moved to another group.
    /// - Throws: ``AggregateError``.
    public func aggregate<Root, Row>(_ request: AggregateRequest<Root, Row>) throws -> [Row] {
        ConcurrencyDebug.checkIfEnabled(self, "aggregate(_:)")
        processPendingChanges()
        let plan = try AggregatePlan(request, model: model, dialect: persistentStoreCoordinator.dialect)
        let overlay = pendingOverlay(includingOwn: request.includesPendingChanges)
        var table = GroupTable(plan)
        if plan.crossesRelationships && overlay.touches(anyEntityBut: plan.entity.name) {
            try aggregateEveryObject(request, plan: plan, into: &table)
        } else {
            try aggregateStoreAndChanges(request, plan: plan, overlay: overlay, into: &table)
        }
        return try table.rows().map(request.makeRow)
    }

    /// The store's rows, but for those with unsaved changes, which are added from memory.
    private func aggregateStoreAndChanges<Root, Row>(_ request: AggregateRequest<Root, Row>, plan: AggregatePlan,
                                                     overlay: PendingOverlay, into table: inout GroupTable) throws {
        var excluded: [Int64] = []
        var changed: [Root] = []
        for (id, change) in overlay.values where change.entity == plan.entity.name {
            if let key = id.primaryKey { excluded.append(key) }
            if let object = materialize(id, entity: plan.entity, pendingValues: change.values) as? Root {
                changed.append(object)
            }
        }
        for id in overlay.deleted where id.entityName == plan.entity.name {
            if let key = id.primaryKey { excluded.append(key) }
        }
        do {
            let store = try persistentStoreCoordinator.requireStore()
            try store.aggregate(plan, excluding: excluded.sorted(), into: &table)
        } catch let error as StoreError {
            throw AggregateError.storeFailure(error)
        }
        add(changed, matching: request.predicate, plan: plan, to: &table)
    }

    /// Every object of the entity, with the unsaved changes of this context and its
    /// ancestors, evaluated in memory.
    private func aggregateEveryObject<Root, Row>(_ request: AggregateRequest<Root, Row>, plan: AggregatePlan,
                                                 into table: inout GroupTable) throws {
        var everything = FetchRequest<Root>()
        everything.includesPendingChanges = request.includesPendingChanges
        let objects: [Root]
        do {
            objects = try fetch(everything)
        } catch FetchError.storeFailure(let error) {
            throw AggregateError.storeFailure(error)
        }
        add(objects, matching: request.predicate, plan: plan, to: &table)
    }

    private func add<Root: ManagedObject>(_ objects: [Root], matching predicate: Predicate<Root>?, plan: AggregatePlan,
                                          to table: inout GroupTable) {
        for object in objects {
            // A predicate that throws in Swift (a force unwrap of nil) selects nothing, as
            // its SQL selects no row where the value is NULL.
            if let predicate, !((try? predicate.evaluate(object)) ?? false) { continue }
            table.add(values: plan.columns.map { storedValue(of: object, along: $0.path) })
        }
    }

    /// The value at the end of a path of to-one relationships, as SQL's LEFT JOIN reads it:
    /// nil when a relationship on the way is nil.
    private func storedValue(of object: ManagedObject, along path: [PropertyStep]) -> StoredValue {
        var current = object
        for step in path.dropLast() {
            guard case .reference(let id) = current.readValue(at: step.index),
                  let next = try? self.object(with: id) else { return .null }
            current = next
        }
        return path.last.map { current.readValue(at: $0.index) } ?? .null
    }
}

extension PendingOverlay {
    /// Whether objects of entities other than `entity` changed.
    func touches(anyEntityBut entity: String) -> Bool {
        values.values.contains { $0.entity != entity } || deleted.contains { $0.entityName != entity }
    }
}
