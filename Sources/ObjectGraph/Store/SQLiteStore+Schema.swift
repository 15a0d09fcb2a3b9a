import Foundation

/// Opening a file: reading what model and version wrote it, then creating, extending or
/// migrating its tables. The model's version and hash live in `_og_metadata` (keys
/// `modelVersion`, `modelHash`, `modelSchema`), beside the store's UUID, so they change in
/// the same transaction as the tables they describe. A file without `modelVersion` was
/// written before versions were recorded and counts as version 1.
extension SQLiteStore {
    /// What opening a file must do to its schema.
    enum SchemaPlan {
        /// A new (empty) database: create every table.
        case create
        /// The file's model is this model.
        case upToDate(UUID)
        /// The file's model lacks some entities or optional attributes: add them.
        case migrate(UUID, [SchemaAddition])
        /// The file is at an earlier version: run the migration plan from `fromVersion`, after
        /// adding what the file lacks of that version (`additions`).
        case migrateVersions(UUID, fromVersion: Int, additions: [SchemaAddition])
    }

    /// Reads the file's header and metadata and compares its model with `model`, without
    /// writing anything.
    /// - Throws: ``StoreError/notADatabase(path:)``, ``StoreError/busy(path:timeout:)``,
    ///   ``StoreError/incompatibleModel(path:differences:)`` listing every difference, or a
    ///   ``MigrationError`` for a file of another version that the plan cannot migrate.
    static func inspectSchema(_ db: SQLiteConnection, model: ManagedObjectModel, plan: MigrationPlan?) throws -> SchemaPlan {
        // Reading sqlite_master is the first I/O: a non-database file fails here, untouched.
        let tableCount = try db.statement("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'")
        _ = try tableCount.step()
        let existingTables = tableCount.int(at: 0)
        tableCount.reset()
        if existingTables == 0 { return .create }

        guard let schemaJSON = try metadata("modelSchema", in: db),
              let idText = try metadata("storeUUID", in: db), let identifier = UUID(uuidString: idText) else {
            throw StoreError.incompatibleModel(path: db.path, differences: [
                "the file has tables but no ObjectGraph metadata: it was not made by ObjectGraph"])
        }
        let recorded = SchemaDecision.Recorded(version: try metadata("modelVersion", in: db),
                                               hash: try metadata("modelHash", in: db), schema: schemaJSON)
        switch try SchemaDecision.decide(recorded, model: model, plan: plan, location: db.path) {
        case .upToDate: return .upToDate(identifier)
        case .extend(let additions): return .migrate(identifier, additions)
        case .migrateVersions(let fromVersion, let additions):
            return .migrateVersions(identifier, fromVersion: fromVersion, additions: additions)
        }
    }

    /// The version the file records; 1 for a file written before versions were recorded.
    static func recordedVersion(in db: SQLiteConnection) throws -> Int {
        try SchemaDecision.recordedVersion(try metadata("modelVersion", in: db), location: db.path)
    }

    /// Checks the file, then creates, extends or migrates the schema. Returns the store's
    /// UUID, and what a migration did (nil when none was needed).
    static func prepareSchema(_ db: SQLiteConnection, model: ManagedObjectModel, description: PersistentStoreDescription,
                              writerIdentity: String, isMemory: Bool) throws -> (UUID, MigrationOutcome?) {
        var plan = try inspectSchema(db, model: model, plan: description.migrationPlan)
        var outcome: MigrationOutcome?
        if case .migrateVersions(let id, let fromVersion, _) = plan, let migrationPlan = description.migrationPlan {
            let migration = StoreMigration(db: db, plan: migrationPlan, model: model, identifier: id,
                                           writerIdentity: writerIdentity, backsUp: description.backsUpBeforeMigrating,
                                           vfs: description.vfsName)
            outcome = try migration.run(expectedFromVersion: fromVersion)
            // Migrated here or by another process meanwhile: the file is at this version now.
            plan = try inspectSchema(db, model: model, plan: migrationPlan)
        }
        let identifier: UUID
        switch plan {
        case .upToDate(let id):
            identifier = id
        case .create, .migrate:
            if case .create = plan, !isMemory { try db.execute("PRAGMA journal_mode = WAL") }
            identifier = try db.transaction {
                try createOrExtend(db, model: model, plan: description.migrationPlan)
            }
        case .migrateVersions(_, let fromVersion, _):
            // Only without a plan, which inspectSchema refuses first; kept exhaustive.
            throw MigrationError.noMigrationPlan(path: db.path, fileVersion: fromVersion, appVersion: model.version)
        }
        if !isMemory { try db.execute("PRAGMA journal_mode = WAL") }
        try db.execute("PRAGMA synchronous = NORMAL")
        if let size = description.writerCacheSize { try db.execute(cacheSizePragma(size)) }
        try createMissingIndexes(model: model, in: db)
        return (identifier, outcome)
    }

    /// Creates the tables, or adds what the file lacks of this version, inside the write lock:
    /// the file is inspected again there, since another connection or process may have created
    /// or extended it while this one waited (it then has nothing to do).
    private static func createOrExtend(_ db: SQLiteConnection, model: ManagedObjectModel,
                                       plan: MigrationPlan?) throws -> UUID {
        switch try inspectSchema(db, model: model, plan: plan) {
        case .create:
            let identifier = UUID()
            try db.execute("""
                CREATE TABLE _og_metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE _og_sequence (entity TEXT PRIMARY KEY, max INTEGER NOT NULL);
                """)
            for entity in model.entities { try createTable(entity, model: model, in: db) }
            try writeMetadata(db, identifier: identifier, model: model)
            try createMissingIndexes(model: model, in: db)
            return identifier
        case .upToDate(let identifier):
            return identifier
        case .migrate(let identifier, let additions):
            try applyAdditions(additions, model: model, in: db)
            try writeMetadata(db, identifier: identifier, model: model)
            return identifier
        case .migrateVersions(_, let fromVersion, _):
            // The version was this model's a moment ago; another process cannot lower it.
            throw MigrationError.noMigrationPlan(path: db.path, fileVersion: fromVersion, appVersion: model.version)
        }
    }

    /// Adds entities and optional attributes the file lacks.
    static func applyAdditions(_ additions: [SchemaAddition], model: ManagedObjectModel, in db: SQLiteConnection) throws {
        for addition in additions {
            switch addition {
            case .entity(let name):
                if let entity = model.entity(named: name) { try createTable(entity, model: model, in: db) }
            case .attribute(let entityName, let name):
                guard let entity = model.entity(named: entityName),
                      let attribute = entity.attribute(named: name) else { continue }
                try db.execute("ALTER TABLE \(SQLSchema.table(entity)) ADD COLUMN \(SQLSchema.quote(name)) \(attribute.type.sqlType)")
            }
        }
    }

    /// Indexes declared with `@Attribute(.indexed)` or `indexes` that the file lacks (they are
    /// not part of the model's hash: declaring one never needs a migration), and the indexes
    /// the store made for declarations that are gone (an attribute no longer `.indexed`, a
    /// compound index no longer declared). Only what differs is written, so opening an
    /// up-to-date store writes nothing.
    private static func createMissingIndexes(model: ManagedObjectModel, in db: SQLiteConnection) throws {
        let existing = try db.statement("SELECT name FROM sqlite_master WHERE type = 'index'")
        defer { existing.reset() }
        var names = Set<String>()
        while try existing.step() { if let name = existing.string(at: 0) { names.insert(name) } }
        var declared = Set<String>()
        for entity in model.entities {
            for attribute in entity.attributes where attribute.isIndexed {
                let name = "\(entity.name)_\(attribute.name)_index"
                guard !names.contains(name) else { continue }
                try db.execute("CREATE INDEX IF NOT EXISTS \(SQLSchema.quote(name)) ON \(SQLSchema.table(entity))(\(SQLSchema.quote(attribute.name)))")
            }
            for columns in entity.indexes {
                let name = SQLSchema.compoundIndexName(entity: entity.name, columns: columns)
                declared.insert(name)
                guard !names.contains(name) else { continue }
                try db.execute("CREATE INDEX IF NOT EXISTS \(SQLSchema.quote(name)) ON \(SQLSchema.table(entity))(\(columns.map(SQLSchema.quote).joined(separator: ", ")))")
            }
        }
        for name in names where name.hasPrefix(SQLSchema.compoundIndexPrefix) && !declared.contains(name) {
            try db.execute("DROP INDEX IF EXISTS \(SQLSchema.quote(name))")
        }
        for entity in model.entities {
            for name in SQLSchema.undeclaredAttributeIndexNames(of: entity) where names.contains(name) {
                try db.execute("DROP INDEX IF EXISTS \(SQLSchema.quote(name))")
            }
        }
    }

    static func metadata(_ key: String, in db: SQLiteConnection) throws -> String? {
        let statement: SQLiteStatement
        do {
            statement = try db.prepared("SELECT value FROM _og_metadata WHERE key = \(.string(key))")
        } catch StoreError.sqlite {
            return nil   // no metadata table
        }
        defer { statement.reset() }
        return try statement.step() ? statement.string(at: 0) : nil
    }

    /// Records the store's UUID and the model (its version, hash and schema).
    static func writeMetadata(_ db: SQLiteConnection, identifier: UUID, model: ManagedObjectModel) throws {
        let json = String(decoding: try JSONEncoder().encode(model.schema), as: UTF8.self)
        for (key, value) in [("storeUUID", identifier.uuidString), ("modelHash", model.versionHash), ("modelSchema", json),
                             ("modelVersion", String(model.version))] {
            try db.run(SQLDialect.sqlite.upsert(into: "_og_metadata", key: "key", columns: ["value"],
                                                values: [.string(key), .string(value)]))
        }
    }

    static func createTable(_ entity: EntityDescription, model: ManagedObjectModel, in db: SQLiteConnection) throws {
        try db.execute("CREATE TABLE IF NOT EXISTS \(SQLSchema.table(entity)) (\(SQLSchema.columnDefinitions(of: entity).joined(separator: ", ")))")
        for index in SQLSchema.indexes(of: entity) { try db.execute(SQLSchema.ifNotExists(index.sql)) }
        for r in entity.relationships where r.isToMany {
            if case .joinTable(let join, _, _) = SQLSchema.mapping(of: r, in: entity, model: model) {
                try createJoinTable(join, in: db)
            }
            if r.cardinality == .orderedToMany {
                try db.execute(SQLSchema.createOrderTable(SQLSchema.orderTableName(entity: entity.name, relationship: r.name)))
            }
        }
        try db.run(SQLDialect.sqlite.insertIgnoringDuplicates(
            into: "_og_sequence", "(entity, max) VALUES (\(.string(entity.name)), 0)"))
    }

    /// A many-to-many relationship's join table (quoted name) and the index on its `b` column.
    static func createJoinTable(_ join: String, in db: SQLiteConnection) throws {
        try db.execute(SQLSchema.createJoinTable(join))
        try db.execute("CREATE INDEX IF NOT EXISTS \(SQLSchema.joinTableIndexName(join)) ON \(join)(\"b\")")
    }
}
