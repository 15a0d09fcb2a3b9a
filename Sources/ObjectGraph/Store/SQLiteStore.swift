import CSQLite
import Foundation
import Synchronization

/// The SQLite store: a table per entity, a metadata table (store UUID, model hash and the
/// model's schema), WAL mode, cached prepared statements, and reader connections beside the
/// writer.
///
/// Opening never changes a file it cannot use: the header and metadata are read first, and
/// only a new file, or one whose model differs by additions alone, is written to.
final class SQLiteStore: Sendable {
    let identifier: UUID
    let model: ManagedObjectModel
    let path: String
    let tables: [String: EntityTable]
    let pool: ConnectionPool
    let busyTimeout: TimeInterval
    /// The VFS every connection opens the file with (nil: the default).
    let vfs: String?
    /// How many read queries ran: lets tests prove that firing faults from the row cache
    /// and reading fetched objects run no SQL.
    let readQueryCount = Atomic<Int>(0)
    /// Whether writes record persistent history (the file's setting, or the description's).
    let recordsHistory: Bool
    /// Names this store's writer in history, so the coordinator can tell its own
    /// transactions from other coordinators' and processes'.
    let writerIdentity = UUID().uuidString
    /// The entities whose full-text index this store built when it opened (created, or
    /// remade in a new shape, and filled from the rows): lets tests see that opening a file
    /// again rebuilds nothing.
    let builtSearchIndexes: [String]

    init(_ description: PersistentStoreDescription, model: ManagedObjectModel) throws {
        self.model = model
        self.busyTimeout = description.busyTimeout
        self.vfs = description.vfsName
        let vfs = description.vfsName
        var tables: [String: EntityTable] = [:]
        for entity in model.entities { tables[entity.name] = EntityTable(entity: entity) }
        self.tables = tables

        let path: String
        let isMemory: Bool
        switch description.kind {
        case .sqlite(let url):
            path = url.path
            isMemory = false
        case .inMemory:
            path = ":memory:"
            isMemory = true
        }
        self.path = path
        if !isMemory && FileManager.default.fileExists(atPath: path + "-wal") {
            // The WAL may hold committed transactions (a crash, or another process has the
            // file open). The last read-write connection to close checkpoints them into the
            // database and deletes the WAL, so a refusal by the writer below would still
            // change the file. A read-only connection never checkpoints: it decides first.
            let inspector = try SQLiteConnection(path: path, readOnly: true, create: false,
                                                 busyTimeout: description.busyTimeout, vfs: vfs)
            _ = try Self.inspectSchema(inspector, model: model)
        }
        let writer = try SQLiteConnection(path: path, readOnly: false, create: true, busyTimeout: description.busyTimeout,
                                          vfs: vfs)
        try Self.requireFullTextSearch(for: model, in: writer)
        self.identifier = try Self.prepareSchema(writer, model: model, isMemory: isMemory)
        self.builtSearchIndexes = try Self.prepareSearchIndexes(model: model, in: writer)
        self.recordsHistory = try Self.prepareHistory(writer, requested: description.recordsHistory)
        let timeout = description.busyTimeout
        self.pool = ConnectionPool(
            writer: writer, maxReaders: max(1, description.maxReaders),
            makeReader: isMemory ? nil : {
                let reader = try SQLiteConnection(path: path, readOnly: true, create: false, busyTimeout: timeout, vfs: vfs)
                try reader.execute("PRAGMA query_only = 1")
                return reader
            })
    }

    // MARK: Schema

    /// What opening a file must do to its schema.
    enum SchemaPlan {
        /// A new (empty) database: create every table.
        case create
        /// The file's model is this model.
        case upToDate(UUID)
        /// The file's model lacks some entities or optional attributes: add them.
        case migrate(UUID, [SchemaAddition])
    }

    /// Reads the file's header and metadata and compares its model with `model`, without
    /// writing anything.
    /// - Throws: ``StoreError/notADatabase(path:)``, ``StoreError/busy(path:timeout:)``, or
    ///   ``StoreError/incompatibleModel(path:differences:)`` listing every difference.
    static func inspectSchema(_ db: SQLiteConnection, model: ManagedObjectModel) throws -> SchemaPlan {
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
        let storedHash = try metadata("modelHash", in: db)
        if storedHash == model.versionHash { return .upToDate(identifier) }
        let old: ModelSchema
        do { old = try JSONDecoder().decode(ModelSchema.self, from: Data(schemaJSON.utf8)) } catch {
            throw StoreError.incompatibleModel(path: db.path, differences: ["the recorded model cannot be read"])
        }
        let (additions, blockers) = model.schema.migration(from: old)
        if !blockers.isEmpty { throw StoreError.incompatibleModel(path: db.path, differences: blockers) }
        return .migrate(identifier, additions)
    }

    /// Checks the file, then creates or migrates the schema. Returns the store's UUID.
    private static func prepareSchema(_ db: SQLiteConnection, model: ManagedObjectModel, isMemory: Bool) throws -> UUID {
        let identifier: UUID
        switch try inspectSchema(db, model: model) {
        case .create:
            identifier = UUID()
            if !isMemory { try db.execute("PRAGMA journal_mode = WAL") }
            try db.execute("PRAGMA synchronous = NORMAL")
            try db.transaction {
                try db.execute("""
                    CREATE TABLE _og_metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                    CREATE TABLE _og_sequence (entity TEXT PRIMARY KEY, max INTEGER NOT NULL);
                    """)
                for entity in model.entities { try createTable(entity, model: model, in: db) }
                try writeMetadata(db, identifier: identifier, model: model)
                try createMissingIndexes(model: model, in: db)
            }
            return identifier
        case .upToDate(let id):
            identifier = id
        case .migrate(let id, let additions):
            identifier = id
            try db.transaction {
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
                try writeMetadata(db, identifier: identifier, model: model)
            }
        }
        if !isMemory { try db.execute("PRAGMA journal_mode = WAL") }
        try db.execute("PRAGMA synchronous = NORMAL")
        try createMissingIndexes(model: model, in: db)
        return identifier
    }

    /// Indexes declared with `@Attribute(.indexed)` or `indexes` that the file lacks (they are
    /// not part of the model's hash: declaring one never needs a migration), and compound
    /// indexes the store made that are no longer declared. Only what differs is written, so
    /// opening an up-to-date store writes nothing.
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
    }

    private static func metadata(_ key: String, in db: SQLiteConnection) throws -> String? {
        let statement: SQLiteStatement
        do {
            statement = try db.statement("SELECT value FROM _og_metadata WHERE key = ?")
        } catch StoreError.sqlite {
            return nil   // no metadata table
        }
        statement.bind(.string(key), at: 1)
        defer { statement.reset() }
        return try statement.step() ? statement.string(at: 0) : nil
    }

    private static func writeMetadata(_ db: SQLiteConnection, identifier: UUID, model: ManagedObjectModel) throws {
        let json = (try? JSONEncoder().encode(model.schema)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        let statement = try db.statement("INSERT OR REPLACE INTO _og_metadata (key, value) VALUES (?, ?)")
        for (key, value) in [("storeUUID", identifier.uuidString), ("modelHash", model.versionHash), ("modelSchema", json)] {
            statement.reset()
            statement.bind([.string(key), .string(value)])
            try statement.run()
        }
    }

    private static func createTable(_ entity: EntityDescription, model: ManagedObjectModel, in db: SQLiteConnection) throws {
        let table = SQLSchema.table(entity)
        var columns = ["_pk INTEGER PRIMARY KEY", "_version INTEGER NOT NULL DEFAULT 1"]
        var statements: [String] = []
        for property in entity.properties {
            switch property {
            case .attribute(let a):
                columns.append("\(SQLSchema.quote(a.name)) \(a.type.sqlType)")
            case .relationship(let r):
                if !r.isToMany {
                    columns.append("\(SQLSchema.quote(r.name)) INTEGER")
                    statements.append("CREATE INDEX IF NOT EXISTS \(SQLSchema.quote("\(entity.name)_\(r.name)")) ON \(table)(\(SQLSchema.quote(r.name)))")
                } else {
                    if case .joinTable(let join, _, _) = SQLSchema.mapping(of: r, in: entity, model: model) {
                        statements.append("CREATE TABLE IF NOT EXISTS \(join) (\"a\" INTEGER NOT NULL, \"b\" INTEGER NOT NULL, PRIMARY KEY (\"a\", \"b\")) WITHOUT ROWID")
                        statements.append("CREATE INDEX IF NOT EXISTS \(SQLSchema.quote(String(join.dropFirst().dropLast()) + "_b")) ON \(join)(\"b\")")
                    }
                    if r.cardinality == .orderedToMany {
                        let order = SQLSchema.orderTableName(entity: entity.name, relationship: r.name)
                        statements.append("CREATE TABLE IF NOT EXISTS \(order) (owner INTEGER NOT NULL, member INTEGER NOT NULL, position INTEGER NOT NULL, PRIMARY KEY (owner, position)) WITHOUT ROWID")
                    }
                }
            }
        }
        try db.execute("CREATE TABLE IF NOT EXISTS \(table) (\(columns.joined(separator: ", ")))")
        for (n, group) in entity.uniquenessConstraints.enumerated() {
            let cols = group.map(SQLSchema.quote).joined(separator: ", ")
            statements.append("CREATE UNIQUE INDEX IF NOT EXISTS \(SQLSchema.quote("\(entity.name)_unique_\(n)")) ON \(table)(\(cols))")
        }
        for sql in statements { try db.execute(sql) }
        let seq = try db.statement("INSERT OR IGNORE INTO _og_sequence (entity, max) VALUES (?, 0)")
        seq.bind([.string(entity.name)])
        try seq.run()
    }

    func table(for entity: EntityDescription) -> EntityTable {
        tables[entity.name] ?? EntityTable(entity: entity)
    }
}
