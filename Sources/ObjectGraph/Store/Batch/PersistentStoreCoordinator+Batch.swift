import Foundation

/// Running batch requests: SQL over the store, without contexts or objects.
///
/// The coordinator's row cache forgets the rows a batch changed; contexts learn of it when
/// they merge ``BatchResult/changes`` (``ManagedObjectContext/execute(_:)-9lq2f`` merges into
/// its own chain), and other coordinators and processes through persistent history.
extension PersistentStoreCoordinator {
    /// Inserts the request's rows.
    /// - Returns: the new objects' permanent IDs, in order.
    /// - Throws: ``BatchError`` (nothing is written).
    @discardableResult
    public func execute<Entity: ManagedObject>(_ request: BatchInsertRequest<Entity>,
                                               author: String? = nil, contextName: String? = nil) throws -> BatchResult {
        let entity = try batchEntity(Entity.self)
        let store = try batchStore()
        var resolver = KeyPathResolver(model: model, entity: entity, store: store.identifier)
        let defaults = entity.properties.map { property -> StoredValue in
            switch property {
            case .attribute(let a): return a.defaultValue
            case .relationship(let r): return r.isToMany ? .unloaded : .null
            }
        }
        var failures: [BatchError.RowFailure] = []
        var row = 0
        var keyPathError: BatchError?
        let nextRow = request.makeRowSource()
        // One placeholder ID names every row in validation messages (rows have no objects).
        let rowID = ObjectID.makeTemporary(entityCode: entity.code)
        let outcome = try store.batchInsert(entity, next: {
            guard let values = nextRow() else { return nil }
            defer { row += 1 }
            var full = defaults
            do {
                for (index, value) in try resolver.resolve(values) { full[index] = value }
            } catch let error as BatchError {
                keyPathError = error
                return nil
            }
            if failures.count < 1000 { failures += Self.check(full, entity: entity, row: row, id: rowID) }
            return full
        }, finish: {
            if let keyPathError { throw keyPathError }
            if !failures.isEmpty { throw BatchError.invalidRows(failures) }
        }, author: author, contextName: contextName)
        return BatchResult(objectIDs: outcome.inserted,
                           changes: ChangeSet(origin: .batch, context: contextName, inserted: Set(outcome.inserted),
                                              updated: [], deleted: []),
                           historyToken: outcome.historyToken)
    }

    /// Sets the request's values on every matching row.
    /// - Returns: the updated rows' IDs.
    /// - Throws: ``BatchError`` (nothing is written).
    @discardableResult
    public func execute<Entity: ManagedObject>(_ request: BatchUpdateRequest<Entity>,
                                               author: String? = nil, contextName: String? = nil) throws -> BatchResult {
        let entity = try batchEntity(Entity.self)
        let store = try batchStore()
        var resolver = KeyPathResolver(model: model, entity: entity, store: store.identifier)
        // A property set twice keeps its later value.
        var latest: [Int: StoredValue] = [:]
        for (index, value) in try resolver.resolve(request.values) { latest[index] = value }
        let values = latest.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        guard !values.isEmpty else {
            return BatchResult(objectIDs: [], changes: ChangeSet(origin: .batch, context: contextName, inserted: [], updated: [], deleted: []),
                               historyToken: nil)
        }
        var failures: [BatchError.RowFailure] = []
        for (index, value) in values {
            switch entity.properties[index] {
            case .attribute(let a):
                let id = ObjectID.makeTemporary(entityCode: entity.code)
                failures += Validator.check(value, attribute: a, objectID: id).map {
                    BatchError.RowFailure(row: 0, property: a.name, message: $0.message)
                }
            case .relationship(let r):
                if r.isRequired, case .null = value {
                    failures.append(.init(row: 0, property: r.name, message: "\(Validator.label(r.name)) is required."))
                }
            }
        }
        if !failures.isEmpty { throw BatchError.invalidRows(failures) }
        let filter = try request.predicate.map { try sqlCondition(for: $0, entity: entity, dialect: store.dialect) }
        let outcome = try store.batchUpdate(entity, where: filter, values: values, author: author, contextName: contextName)
        for id in outcome.updated { rowCache.invalidate(id) }
        // Old and new destinations of a changed to-one: their to-many inverse changed too.
        return BatchResult(objectIDs: outcome.updated,
                           changes: ChangeSet(origin: .batch, context: contextName, inserted: [],
                                              updated: Set(outcome.updated).union(outcome.related), deleted: []),
                           historyToken: outcome.historyToken)
    }

    /// Deletes the request's rows, with the delete rules applied in SQL.
    /// - Returns: the deleted rows of the request's entity; ``BatchResult/changes`` also has
    ///   cascaded deletes and nullified references.
    /// - Throws: ``BatchError`` (nothing is written).
    @discardableResult
    public func execute<Entity: ManagedObject>(_ request: BatchDeleteRequest<Entity>,
                                               author: String? = nil, contextName: String? = nil) throws -> BatchResult {
        let entity = try batchEntity(Entity.self)
        let store = try batchStore()
        let selection: BatchDeleteSelection
        switch request.selection {
        case .predicate(let predicate):
            selection = .condition(try predicate.map { try sqlCondition(for: $0, entity: entity, dialect: store.dialect) })
        case .objectIDs(let ids):
            selection = .keys(try ids.map { id in
                guard id.entityName == entity.name, id.storeIdentifier == store.identifier, let pk = id.primaryKey else {
                    throw BatchError.invalidObjectID(id)
                }
                return pk
            })
        }
        let outcome = try store.batchDelete(entity, selection, author: author, contextName: contextName)
        rowCache.apply(written: [:], deleted: Set(outcome.deleted))
        for id in outcome.updated { rowCache.invalidate(id) }
        return BatchResult(objectIDs: outcome.deleted.filter { $0.entityName == entity.name },
                           changes: ChangeSet(origin: .batch, context: contextName, inserted: [],
                                              updated: Set(outcome.updated), deleted: Set(outcome.deleted)),
                           historyToken: outcome.historyToken)
    }

    // MARK: Helpers

    private func batchEntity<Entity: ManagedObject>(_ type: Entity.Type) throws -> EntityDescription {
        guard let entity = model.entity(for: type) else {
            throw BatchError.unsupportedKeyPath(entity: String(describing: type), keyPath: "(the entity is not in the model)")
        }
        return entity
    }

    private func batchStore() throws -> any PersistentStore {
        do { return try requireStore() } catch let error as StoreError { throw BatchError.storeFailure(error) }
    }

    private func sqlCondition<Entity: ManagedObject>(for predicate: Predicate<Entity>, entity: EntityDescription,
                                                     dialect: SQLDialect) throws -> SQLFragment {
        do {
            return try PredicateTranslator(schema: ModelPredicateSchema(model: model), rootEntity: entity.name,
                                           dialect: dialect).translate(predicate)
        } catch {
            throw BatchError.untranslatablePredicate("\(error)")
        }
    }

    /// A full row's declared constraints (attributes and required to-one relationships).
    private static func check(_ values: [StoredValue], entity: EntityDescription, row: Int,
                              id: ObjectID) -> [BatchError.RowFailure] {
        var failures: [BatchError.RowFailure] = []
        for (index, property) in entity.properties.enumerated() {
            switch property {
            case .attribute(let a):
                guard !a.constraints.isEmpty else { continue }
                for failure in Validator.check(values[index], attribute: a, objectID: id) {
                    failures.append(.init(row: row, property: a.name, message: failure.message))
                }
            case .relationship(let r):
                if !r.isToMany && r.isRequired, case .null = values[index] {
                    failures.append(.init(row: row, property: r.name, message: "\(Validator.label(r.name)) is required."))
                }
            }
        }
        return failures
    }
}

/// Turns key paths of ``PropertyValues`` into property indices, once per key path.
struct KeyPathResolver {
    let model: ManagedObjectModel
    let entity: EntityDescription
    let store: UUID
    private var cache: [AnyKeyPath: Int] = [:]
    /// The key paths of the previous row, by position, and where the current row is.
    private var recent: [(keyPath: AnyKeyPath, index: Int)] = []
    private var position = 0

    init(model: ManagedObjectModel, entity: EntityDescription, store: UUID) {
        self.model = model
        self.entity = entity
        self.store = store
    }

    mutating func resolve<Entity: ManagedObject>(_ values: PropertyValues<Entity>) throws -> [(Int, StoredValue)] {
        position = 0
        return try values.assignments.map { assignment in
            let index = try self.index(of: assignment.keyPath)
            let property = entity.properties[index]
            switch (property, assignment.target) {
            case (.attribute(let a), .attribute(let type)) where a.type == type:
                return (index, assignment.value)
            case (.relationship(let r), .toOne) where !r.isToMany:
                // The inverse is kept in step only when it is a plain to-many, which is read
                // from this foreign key itself.
                if let inverse = model.entity(named: r.destinationEntityName)?.relationship(named: r.inverseName),
                   inverse.cardinality != .toMany {
                    throw BatchError.unsupportedRelationship(entity: entity.name, relationship: r.name, inverse: inverse.name)
                }
                if case .reference(let id) = assignment.value,
                   id.entityName != r.destinationEntityName || id.isTemporaryID || id.storeIdentifier != store {
                    throw BatchError.invalidDestination(property: r.name, objectID: id)
                }
                return (index, assignment.value)
            default:
                throw BatchError.unsupportedKeyPath(entity: entity.name, keyPath: property.name)
            }
        }
    }

    private mutating func index(of keyPath: AnyKeyPath) throws -> Int {
        // Rows usually set the same key path literals (the same objects) in the same order:
        // an identity check at the same position avoids hashing the key path.
        if position < recent.count, recent[position].keyPath === keyPath {
            defer { position += 1 }
            return recent[position].index
        }
        if let cached = cache[keyPath] {
            remember(keyPath, cached)
            return cached
        }
        guard let path = model.propertyPath(for: keyPath, in: entity), path.count == 1, let step = path.first,
              step.entityName == entity.name else {
            throw BatchError.unsupportedKeyPath(entity: entity.name, keyPath: "\(keyPath)")
        }
        cache[keyPath] = step.index
        remember(keyPath, step.index)
        return step.index
    }

    private mutating func remember(_ keyPath: AnyKeyPath, _ index: Int) {
        if position < recent.count { recent[position] = (keyPath, index) } else { recent.append((keyPath, index)) }
        position += 1
    }
}
