import Foundation

/// What a custom stage's body works with: the old version's rows and a context of the new
/// version, both inside the migration's transaction.
///
/// ```swift
/// .custom(from: 2, to: 3, name: "amount to line items") { migration in
///     try migration.forEachRow(of: V2.Invoice.self) { invoice, context in
///         let item = V3.LineItem(context: context)
///         item.unitPrice = try invoice[\.amount]
///         item.quantity = 1
///         item.invoice = try context.existingObject(with: invoice.objectID, as: V3.Invoice.self)
///     }
/// }
/// ```
///
/// Valid only while the body runs, on the thread that runs it.
public final class CustomMigration {
    /// The stage's name, as errors give it.
    public let stage: String
    /// The old version's model: the rows ``forEachRow(of:batchSize:_:)`` reads.
    public let sourceModel: ManagedObjectModel
    /// The new version's model: the objects ``context`` makes.
    public let destinationModel: ManagedObjectModel
    /// A private-queue context of the new version. Its saves go into the migration's
    /// transaction (and its one history transaction), never to disk on their own; whatever
    /// it holds unsaved when the body returns is saved then. Use it inside
    /// `context.performAndWait { }`; ``forEachRow(of:batchSize:_:)`` does that for you.
    public let context: ManagedObjectContext
    private let db: SQLiteConnection
    private let storeIdentifier: UUID

    init(stage: String, source: ManagedObjectModel, destination: ManagedObjectModel, context: ManagedObjectContext,
         db: SQLiteConnection, storeIdentifier: UUID) {
        self.stage = stage
        self.sourceModel = source
        self.destinationModel = destination
        self.context = context
        self.db = db
        self.storeIdentifier = storeIdentifier
    }

    /// Calls `body` for each row of the old version's `type`, by ascending primary key, in
    /// batches: after each batch, ``context`` is saved (into the migration's transaction)
    /// and reset, so a file of any size migrates in the memory of one batch. `body` runs on
    /// the context's queue; do not keep its objects past the call.
    ///
    /// - Throws: ``MigrationError/stageFailed(_:)`` naming the row being migrated: what
    ///   `body` threw, or why the batch's save failed (an object that does not validate is
    ///   named with the row that made it).
    public func forEachRow<Source: ManagedObject>(of type: Source.Type, batchSize: Int = 1_000,
                                                  _ body: (MigrationRow<Source>, ManagedObjectContext) throws -> Void) throws {
        guard let entity = sourceModel.entity(for: type) else {
            throw MigrationError.stageFailed(MigrationFailure(
                stage: stage, reason: .stageError("\(Source.self) is not an entity of version \(sourceModel.version)")))
        }
        let table = EntityTable(entity: entity), keyPaths = MigrationKeyPaths()
        let select = try db.uncachedStatement(
            "SELECT \(table.selectList) FROM \(table.table) t0 WHERE t0._pk > ? ORDER BY t0._pk LIMIT ?")
        var after: Int64 = 0
        let store = ObjectID.storeCode(for: storeIdentifier)
        while true {
            select.reset()
            select.bind([.int(after), .int(Int64(max(1, batchSize)))])
            var rows: [MigrationRow<Source>] = []
            while try select.step() {
                let (id, snapshot) = table.snapshot(from: select, store: store)
                rows.append(MigrationRow(objectID: id, values: snapshot.values, entity: entity, model: sourceModel, stage: stage,
                                         keyPaths: keyPaths))
            }
            select.reset()
            guard let last = rows.last else { return }
            try migrate(rows, body)
            after = last.primaryKey
        }
    }

    private func migrate<Source>(_ rows: [MigrationRow<Source>],
                                 _ body: (MigrationRow<Source>, ManagedObjectContext) throws -> Void) throws {
        let context = self.context
        try context.performAndWait {
            // Which row made each inserted object, so a save failure can name it.
            var madeBy: [ObjectID: MigrationRow<Source>] = [:]
            for row in rows {
                let mark = context.pending.insertionCount
                do {
                    try body(row, context)
                } catch let error as MigrationError {
                    throw error
                } catch {
                    throw failure(row.entity.name, row.primaryKey, .stageError(String(describing: error)))
                }
                for object in context.pending.insertions(since: mark) { madeBy[object.objectID] = row }
            }
            try save { id in madeBy[id].map { ($0.entity.name, $0.primaryKey) } }
            context.reset()
        }
    }

    /// Saves what the context holds (on its queue), naming the object a failure is about:
    /// `origin` tells which old row made an inserted object.
    func save(origin: (ObjectID) -> (String, Int64)? = { _ in nil }) throws {
        guard context.hasChanges else { return }
        do {
            try context.save()
        } catch SaveError.validationFailed(let failures) {
            guard let first = failures.first else { throw failure(nil, nil, .stageError("the save failed validation")) }
            let (entity, key) = origin(first.objectID) ?? (first.objectID.entityName, first.objectID.primaryKey ?? 0)
            throw failure(entity, key, .invalid(first))
        } catch SaveError.storeFailure(let error) {
            throw failure(nil, nil, .store(error))
        } catch let error as SaveError {
            throw failure(nil, nil, .stageError(error.description))
        }
    }

    private func failure(_ entity: String?, _ primaryKey: Int64?, _ reason: MigrationFailure.Reason) -> MigrationError {
        MigrationError.stageFailed(MigrationFailure(stage: stage, entity: entity, primaryKey: primaryKey, reason: reason))
    }
}
