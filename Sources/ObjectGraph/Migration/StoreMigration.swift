import Foundation

/// Runs a migration plan on a file, in one SQLite transaction.
///
/// 1. `BEGIN IMMEDIATE` takes the write lock, waiting up to the busy timeout for another
///    process (which may be migrating the same file).
/// 2. The version is read again inside the lock: if another process migrated meanwhile,
///    there is nothing to do.
/// 3. The backup copy is written (the lock keeps everyone else from writing; readers go on).
/// 4. Every stage from the file's version runs; then the new model is recorded, with one
///    history transaction by author `migration` when the file records history.
/// 5. `COMMIT`. Any error before it rolls everything back: the file is as it was.
struct StoreMigration {
    let db: SQLiteConnection
    let plan: MigrationPlan
    let model: ManagedObjectModel
    let identifier: UUID
    let writerIdentity: String
    let backsUp: Bool
    /// The VFS the backup is written through (the store's).
    let vfs: String?

    func run(expectedFromVersion: Int) throws -> MigrationOutcome {
        let clock = ContinuousClock(), start = clock.now
        try db.execute("BEGIN IMMEDIATE")
        do {
            guard case .migrateVersions(_, let fromVersion, let additions) = try SQLiteStore.inspectSchema(db, model: model, plan: plan),
                  let first = plan.model(version: fromVersion) else {
                try db.execute("COMMIT")
                return .migratedElsewhere(fromVersion: expectedFromVersion, toVersion: model.version)
            }
            let backup = backsUp ? try StoreBackup.write(of: db.path, version: fromVersion, busyTimeout: db.busyTimeout,
                                                        vfs: vfs) : nil
            try SQLiteStore.applyAdditions(additions, model: first, in: db)
            let stages = try runStages(from: fromVersion)
            try SQLiteStore.writeMetadata(db, identifier: identifier, model: model)
            try db.execute("COMMIT")
            return .migrated(MigrationReport(fromVersion: fromVersion, toVersion: model.version, stages: stages,
                                             backup: backup, duration: clock.now - start))
        } catch {
            // The error says what failed; the rollback restores the file as it was (and should
            // it fail, the store is not opened: closing the connection rolls back too).
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    private func runStages(from version: Int) throws -> [String] {
        let recordsHistory = try SQLiteStore.metadata("historyEnabled", in: db) == "1"
        let history = MigrationHistoryTransaction(contextName: "migration \(version) → \(model.version)")
        db.nestsInOpenTransaction = true
        defer { db.nestsInOpenTransaction = false }
        var names: [String] = []
        for step in plan.steps(from: version) {
            let runner = StageRunner(db: db, stage: step.stage, change: step.change, from: step.from, to: step.to,
                                     identifier: identifier, recordsHistory: recordsHistory, writerIdentity: writerIdentity,
                                     history: history)
            try runner.run()
            names.append(step.stage.name)
        }
        if recordsHistory {
            _ = try history.number {
                try SQLiteStore.insertHistoryTransaction(author: history.author, contextName: history.contextName,
                                                        writerIdentity: writerIdentity, in: db)
            }
        }
        return names
    }
}

/// One stage: its tables, its body (for a custom stage), its checks, and the rewrite of
/// recorded history. Errors that are not already a ``MigrationError`` are named with the
/// stage.
struct StageRunner {
    let db: SQLiteConnection
    let stage: MigrationStage
    let change: StageChange
    let from: ManagedObjectModel
    let to: ManagedObjectModel
    let identifier: UUID
    let recordsHistory: Bool
    let writerIdentity: String
    let history: MigrationHistoryTransaction

    func run() throws {
        let tables = StageTables(db: db, change: change, to: to, stage: stage.name)
        do {
            if let body = stage.body {
                try tables.expand()
                try runBody(body)
                try tables.contract()
            } else {
                try tables.migrateLightweight()
            }
            try StageChecks(db: db, change: change, to: to, stage: stage.name).run()
            if recordsHistory { try HistoryRewrite.apply(change, stage: stage.name, in: db) }
        } catch let error as MigrationError {
            throw error
        } catch let error as StoreError {
            throw MigrationError.stageFailed(MigrationFailure(stage: stage.name, reason: .store(error)))
        }
    }

    /// Runs a custom stage's body with a context of the new version over this transaction.
    private func runBody(_ body: (CustomMigration) throws -> Void) throws {
        let store = SQLiteStore(migrating: db, model: to, identifier: identifier, recordsHistory: recordsHistory,
                                writerIdentity: writerIdentity, history: history)
        let coordinator = PersistentStoreCoordinator(model: to)
        coordinator.attachMigrationStore(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "migration \(stage.name)")
        let migration = CustomMigration(stage: stage.name, source: from, destination: to, context: context, db: db,
                                        storeIdentifier: identifier)
        do {
            try body(migration)
        } catch let error as MigrationError {
            throw error
        } catch {
            throw MigrationError.stageFailed(MigrationFailure(stage: stage.name, reason: .stageError(String(describing: error))))
        }
        try context.performAndWait {
            try migration.save()
            context.reset()
        }
    }
}
