import CSQLite
import Foundation
import Synchronization

/// The SQLite store: a table per entity, a metadata table (store UUID, model hash and the
/// model's schema), WAL mode, cached prepared statements, and reader connections beside the
/// writer.
///
/// It is also the in-memory store: `.inMemory()` opens an SQLite `:memory:` database, with the
/// same SQL and behaviour as a file; its readers share the writer's connection (a second
/// connection would open another, empty database), and nobody else can write to it.
///
/// Opening never changes a file it cannot use: the header and metadata are read first, and
/// only a new file, one whose model differs by additions alone, or one of an earlier version
/// that the description's migration plan migrates, is written to.
final class SQLiteStore: PersistentStore {
    let identifier: UUID
    /// `identifier`'s number in this process's ``ObjectID``s.
    let storeCode: UInt32
    let model: ManagedObjectModel
    let path: String
    /// Whether the database is the connection's own `:memory:` one.
    let isInMemory: Bool
    let tables: EntityTables
    let pool: ConnectionPool<SQLiteConnection>
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
    let writerIdentity: String
    /// What opening the file migrated (nil when it needed no migration).
    let migrationOutcome: MigrationOutcome?
    /// Set on the stores a migration's contexts save through: every save adds its changes
    /// to the migration's one history transaction.
    let migrationHistory: MigrationHistoryTransaction?
    /// The entities whose full-text index this store built when it opened (created, or
    /// remade in a new shape, and filled from the rows): lets tests see that opening a file
    /// again rebuilds nothing.
    let builtSearchIndexes: [String]
    /// The entities whose substring index this store built when it opened (see
    /// `builtSearchIndexes`).
    let builtSubstringIndexes: [String]
    /// The dialect fetches translate to: SQLite's, reading the substring indexes the model
    /// declares (they exist once the store is open).
    let dialect: SQLDialect
    /// Checkpoints the WAL beside the writer (nil for an in-memory store and a migration's).
    let checkpointer: WALCheckpointer?

    init(_ description: PersistentStoreDescription, model: ManagedObjectModel) throws {
        if let plan = description.migrationPlan,
           plan.currentModel.version != model.version || plan.currentModel.versionHash != model.versionHash {
            throw MigrationPlanError.modelNotInPlan(modelVersion: model.version, planVersion: plan.currentModel.version)
        }
        self.model = model
        let writerIdentity = UUID().uuidString
        self.writerIdentity = writerIdentity
        self.migrationHistory = nil
        self.busyTimeout = description.busyTimeout
        self.vfs = description.vfsName
        let vfs = description.vfsName
        self.tables = EntityTables(model: model)

        let (path, isMemory) = Self.location(of: description)
        self.path = path
        self.isInMemory = isMemory
        // A WAL with frames may hold transactions another app committed and never checkpointed.
        let walSize = isMemory ? nil : (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int
        let hadWAL = (walSize ?? 0) > 0
        if walSize != nil {
            // The WAL may hold committed transactions (a crash, or another process has the
            // file open). The last read-write connection to close checkpoints them into the
            // database and deletes the WAL, so a refusal by the writer below would still
            // change the file. A read-only connection never checkpoints: it decides first.
            let inspector = try SQLiteConnection(path: path, readOnly: true, create: false,
                                                 busyTimeout: description.busyTimeout, vfs: vfs)
            _ = try Self.inspectSchema(inspector, model: model, plan: description.migrationPlan)
        }
        let writer = try SQLiteConnection(path: path, readOnly: false, create: true, busyTimeout: description.busyTimeout,
                                          vfs: vfs)
        try Self.requireFullTextSearch(for: model, in: writer)
        do {
            (self.identifier, self.migrationOutcome) = try Self.prepareSchema(
                writer, model: model, description: description, writerIdentity: writerIdentity, isMemory: isMemory)
        } catch {
            // A refused or rolled-back migration: closing must not checkpoint the WAL another
            // app left (its transactions would move into the database file).
            if hadWAL { writer.keepWALOnClose() }
            throw error
        }
        self.storeCode = ObjectID.storeCode(for: identifier)
        let built = try Self.prepareSearchIndexes(model: model, in: writer)
        self.builtSearchIndexes = built.filter { $0.name == SQLSchema.searchIndexName($0.entity) }.map(\.entity)
        self.builtSubstringIndexes = built.filter { $0.name == SQLSchema.substringIndexName($0.entity) }.map(\.entity)
        self.dialect = SQLDialect.sqlite.readingSubstringIndexes(of: model)
        self.recordsHistory = try Self.prepareHistory(writer, requested: description.recordsHistory)
        if isMemory {
            checkpointer = nil
        } else {
            let checkpointer = try WALCheckpointer(path: path, vfs: vfs, busyTimeout: description.busyTimeout)
            checkpointer.install(on: writer)
            self.checkpointer = checkpointer
        }
        let timeout = description.busyTimeout
        let cacheSize = description.readerCacheSize.map(Self.cacheSizePragma)
        self.pool = ConnectionPool(
            writer: writer, maxReaders: max(1, description.maxReaders),
            makeReader: isMemory ? nil : {
                let reader = try SQLiteConnection(path: path, readOnly: true, create: false, busyTimeout: timeout, vfs: vfs)
                try reader.execute("PRAGMA query_only = 1")
                if let cacheSize { try reader.execute(cacheSize) }
                return reader
            })
    }

    /// The statement that limits a connection's page cache to `bytes`: a negative
    /// `cache_size` is a size in KiB rather than a number of pages.
    static func cacheSizePragma(_ bytes: Int) -> String {
        "PRAGMA cache_size = -\(max(1, bytes / 1024))"
    }

    /// The file's path (`:memory:` for an in-memory store) and whether it is in memory.
    private static func location(of description: PersistentStoreDescription) -> (path: String, isMemory: Bool) {
        switch description.kind {
        case .sqlite(let url): (url.path, false)
        case .inMemory: (":memory:", true)
        }
    }

    /// A store over a connection a migration holds in its transaction, for one version of
    /// the model: the migration's contexts read and save through it, and every save becomes
    /// a savepoint of that transaction. Readers share the connection (they must see what the
    /// migration wrote so far).
    init(migrating db: SQLiteConnection, model: ManagedObjectModel, identifier: UUID, recordsHistory: Bool,
         writerIdentity: String, history: MigrationHistoryTransaction) {
        self.identifier = identifier
        self.storeCode = ObjectID.storeCode(for: identifier)
        self.model = model
        self.path = db.path
        self.isInMemory = false
        self.tables = EntityTables(model: model)
        self.pool = ConnectionPool(writer: db, maxReaders: 1, makeReader: nil)
        self.busyTimeout = db.busyTimeout
        self.vfs = nil
        self.recordsHistory = recordsHistory
        self.writerIdentity = writerIdentity
        self.migrationOutcome = nil
        self.migrationHistory = history
        // The migration's tables change under it: the indexes are made when the store opens after it.
        self.builtSearchIndexes = []
        self.builtSubstringIndexes = []
        // Nor are the substring indexes there to read yet: substring tests scan.
        self.dialect = .sqlite
        // The migration's transaction is the file's writer; its checkpoints stay SQLite's.
        self.checkpointer = nil
    }

    deinit {
        // Before the writer closes: the writer, last to close, checkpoints and removes the WAL.
        checkpointer?.stop()
    }

    func checkpoint() throws {
        if let checkpointer { try checkpointer.checkpointNow() }
    }

    func table(for entity: EntityDescription) -> EntityTable {
        tables.table(for: entity)
    }

    // MARK: PersistentStore

    var location: String { path }
    var isShared: Bool { !isInMemory }
    var executedReadQueries: Int { readQueryCount.load(ordering: .relaxed) }

    /// `PRAGMA data_version` on a connection of the signal's own; an in-memory database
    /// never changes but by this store's writes.
    func makeChangeSignal(reusingAnswersFor interval: Duration) throws -> any StoreChangeSignal {
        if isInMemory { return UnchangingSignal() }
        return try SQLiteDataVersion(path: path, vfs: vfs, interval: interval, gatedByHistory: recordsHistory)
    }
}
