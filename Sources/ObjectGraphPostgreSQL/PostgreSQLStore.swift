import Foundation
import ObjectGraph
import Synchronization

/// ObjectGraph's store on a PostgreSQL server, over libpq: a table per entity, the same
/// metadata, key sequences and persistent history as the SQLite store, and the same save
/// rules (``SaveTransaction``). Several servers may use one database at once: row versions
/// catch what one wrote under another, and `pg_notify`, sent inside each committing
/// transaction and heard on a `LISTEN` connection, is the change signal.
///
/// ```swift
/// try coordinator.addPostgreSQLStore(PostgreSQLStore.Configuration(url: "postgresql://app@127.0.0.1:5432/invoices"))
/// ```
///
/// The schema is created on first use. A database written by another model is migrated by
/// the SQLite store's rules when the change only adds (``Configuration/migrationPlan`` for
/// another version); anything else is refused, naming the differences.
///
/// Batch requests run in SQL as on SQLite (`PostgreSQLStore+Batch.swift`). Full-text search
/// (`.searchable`, `FetchRequest.searchQuery`) reads a GIN index on a `tsvector` of each
/// entity's searchable attributes (`PostgreSQLFullTextSearch`), matching as SQLite's FTS5 does
/// save for the differences listed there (ranking by `ts_rank`, not bm25, among them);
/// case-insensitive substring searches are indexed with ``SubstringSearchIndex``. Migration
/// stages that rename, remove or convert, and custom stages, are refused with
/// ``MigrationError/changesNotAdditive(location:stage:changes:)``.
public final class PostgreSQLStore: PersistentStore {
    /// Where the database is and how the store uses it.
    public struct Configuration: Sendable {
        /// `postgresql://user[:password]@host:port/database` (any libpq connection URI).
        public var url: String
        /// A schema of the database to keep the tables in (created when missing); nil: the
        /// user's default (`public`).
        public var schema: String?
        /// Whether every write records persistent history. Once a database records history, it
        /// keeps doing so for every store that opens it.
        public var recordsHistory: Bool
        /// How many reader connections serve fetches beside the writer.
        public var maxReaders: Int
        /// Trigram indexes for case-insensitive substring searches, created when missing.
        public var substringSearchIndexes: [SubstringSearchIndex] = []
        /// How a database of an earlier model version is brought to the model's, as for an
        /// SQLite file; only stages that add run here (no backup is written: the migration is
        /// one transaction, rolled back on any failure).
        public var migrationPlan: MigrationPlan?

        public init(url: String, schema: String? = nil, recordsHistory: Bool = false, maxReaders: Int = 2) {
            self.url = url
            self.schema = schema
            self.recordsHistory = recordsHistory
            self.maxReaders = maxReaders
        }
    }

    package let identifier: UUID
    package let location: String
    package let recordsHistory: Bool
    package var isShared: Bool { true }
    package let migrationOutcome: MigrationOutcome?
    /// Made once: every fetch and count asks for it.
    package let dialect = SQLDialect.postgreSQL.searching(with: PostgreSQLFullTextSearch.shared)
    package var executedReadQueries: Int { readQueries.load(ordering: .relaxed) }

    let model: ManagedObjectModel
    let tables: EntityTables
    /// ``saveInsert(for:)`` by entity name.
    let saveInserts: [String: PostgreSQLMultiRowInsert]
    /// ``saveUpdate(for:positions:)`` by entity name and positions, made at first use.
    private let saveUpdates = Mutex<[String: PostgreSQLMultiRowUpdate]>([:])
    let pool: ConnectionPool<PostgreSQLConnection>
    /// Names this store's writer in history, so it can tell its own transactions from others'.
    let writerIdentity: String
    /// The channel `pg_notify` announces commits on: one per store, named after its UUID.
    let channel: String
    private let readQueries = Atomic<Int>(0)
    /// The connection details, for the listener's own connection.
    let conninfo: String
    let sessionSetup: String
    /// The listener of commits, started by the first change signal.
    private let listener = Locked<PostgreSQLChangeListener?>(nil)

    /// Connects, and creates the schema on first use.
    /// - Throws: ``StoreError/unreachable(location:reason:)``, ``StoreError/incompatibleModel(path:differences:)``,
    ///   ``StoreError/server(sqlState:message:sql:)``, ``MigrationError``.
    public init(_ configuration: Configuration, model: ManagedObjectModel) throws {
        self.model = model
        let location = Self.redacted(configuration.url) + (configuration.schema.map { " (schema \($0))" } ?? "")
        self.location = location
        conninfo = Self.withConnectTimeout(configuration.url)
        var setup = "SET TimeZone TO 'UTC'; SET DateStyle TO 'ISO'; SET extra_float_digits TO 3; SET client_min_messages TO warning;"
        if let schema = configuration.schema { setup += " SET search_path TO \(SQLDialect.quote(schema));" }
        sessionSetup = setup
        self.tables = EntityTables(model: model)
        saveInserts = tables.byName.mapValues(Self.makeSaveInsert)
        let writer = try PostgreSQLConnection(conninfo: conninfo, location: location,
                                              sessionSetup: "SET client_min_messages TO warning;")
        if let schema = configuration.schema { try Self.createSchema(schema, on: writer) }
        try writer.execute(setup)
        let writerIdentity = UUID().uuidString
        self.writerIdentity = writerIdentity
        let prepared = try PostgreSQLSchema(model: model, location: location, plan: configuration.migrationPlan,
                                            writerIdentity: writerIdentity)
            .prepare(writer, recordsHistory: configuration.recordsHistory,
                     substringSearchIndexes: configuration.substringSearchIndexes)
        (identifier, recordsHistory, migrationOutcome) = (prepared.identifier, prepared.recordsHistory, prepared.migration)
        channel = "og_" + identifier.uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let (conninfo, session) = (conninfo, setup)
        pool = ConnectionPool(writer: writer, maxReaders: max(1, configuration.maxReaders), makeReader: {
            try PostgreSQLConnection(conninfo: conninfo, location: location, sessionSetup: session)
        })
    }

    deinit {
        listener.withLock { $0?.stop() }
    }

    /// Makes the schema unless it exists. `IF NOT EXISTS` is not safe against another
    /// connection making it at the same moment (the catalog's unique index refuses the
    /// second): that refusal means it exists now.
    static func createSchema(_ schema: String, on db: PostgreSQLConnection) throws {
        do {
            try db.execute("CREATE SCHEMA IF NOT EXISTS \(SQLDialect.quote(schema))")
        } catch StoreError.server(let state, _, _) where state == PostgreSQLState.uniqueViolation {
            return
        }
    }

    /// The multi-row insert of a save's new rows of `entity` (statements made once per store).
    func saveInsert(for entity: EntityDescription) -> PostgreSQLMultiRowInsert {
        saveInserts[entity.name] ?? Self.makeSaveInsert(table(for: entity))
    }

    /// The multi-row update of a save's rows of `entity` that set the columns at `positions`.
    func saveUpdate(for entity: EntityDescription, positions: [Int]) -> PostgreSQLMultiRowUpdate {
        let key = entity.name + positions.map { "," + String($0) }.joined()
        if let made = saveUpdates.withLock({ $0[key] }) { return made }
        let made = PostgreSQLMultiRowUpdate(table(for: entity), positions: positions)
        saveUpdates.withLock { $0[key] = made }
        return made
    }

    static func makeSaveInsert(_ table: EntityTable) -> PostgreSQLMultiRowInsert {
        PostgreSQLMultiRowInsert(into: table.table, columns: ["_pk", "_version"] + table.columns.map(\.name),
                                 suffix: "ON CONFLICT DO NOTHING RETURNING _pk")
    }

    func table(for entity: EntityDescription) -> EntityTable {
        tables.table(for: entity)
    }

    /// The URL with `connect_timeout=5` unless it sets one: libpq would otherwise wait for an
    /// unreachable host as long as the system does, holding the writer (and a save) meanwhile.
    private static func withConnectTimeout(_ url: String) -> String {
        guard url.contains("://"), !url.contains("connect_timeout=") else { return url }
        return url + (url.contains("?") ? "&" : "?") + "connect_timeout=5"
    }

    /// The URL without its password, for messages.
    private static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return "the PostgreSQL server" }
        if components.password != nil { components.password = "***" }
        return components.string ?? "the PostgreSQL server"
    }

    // MARK: Reading

    /// Runs a read on a reader connection.
    func read<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        readQueries.add(1, ordering: .relaxed)
        do {
            return try pool.read(body)
        } catch StoreError.unreachable {
            // A reader the server dropped since its last use (a restart) learns it only now,
            // and is made again at its next use: a read changes nothing, so it runs once more.
            return try pool.read(body)
        }
    }

    package func row(primaryKey: Int64, entity: EntityDescription) throws -> RowSnapshot? {
        let table = table(for: entity)
        let result = try read { try $0.query(table.select(primaryKey: primaryKey)) }
        return result.rowCount > 0 ? snapshot(result, row: 0, table: table).1 : nil
    }

    package func destinations(of ownerKey: Int64, relationship: RelationshipDescription,
                              entity: EntityDescription) throws -> [(ObjectID, RowSnapshot)] {
        guard let destination = model.entity(named: relationship.destinationEntityName) else { return [] }
        let table = table(for: destination)
        guard let sql = table.destinationsSQL(of: relationship, in: entity, model: model) else { return [] }
        let result = try read { try $0.query(SQLFragment(sql, [.int(ownerKey)])) }
        return (0..<result.rowCount).map { snapshot(result, row: $0, table: table) }
    }

    package func fetchRows(_ entity: EntityDescription, join: String, where condition: SQLFragment?, orderBy: String?,
                           limit: Int?, offset: Int) throws -> [(ObjectID, RowSnapshot)] {
        let table = table(for: entity)
        let result = try read { try $0.query(select(table.selectList, from: table, where: condition, orderBy: orderBy,
                                                    limit: limit, offset: offset)) }
        return (0..<result.rowCount).map { snapshot(result, row: $0, table: table) }
    }

    package func fetchRankedRows(_ entity: EntityDescription, join: String, where condition: SQLFragment?,
                                 rank: String) throws -> [(id: ObjectID, row: RowSnapshot, rank: Double)] {
        let table = table(for: entity)
        let result = try read { try $0.query(select(table.selectList + ", " + rank, from: table, where: condition,
                                                    orderBy: nil, limit: nil, offset: 0)) }
        let rankColumn = 2 + table.columns.count
        return (0..<result.rowCount).map { row in
            let (id, snapshot) = snapshot(result, row: row, table: table)
            return (id, snapshot, result.double(row, rankColumn))
        }
    }

    package func fetchIDs(_ entity: EntityDescription, join: String, where condition: SQLFragment?, orderBy: String?,
                          limit: Int?, offset: Int) throws -> [ObjectID] {
        let table = table(for: entity)
        let result = try read { try $0.query(select("t0._pk", from: table, where: condition, orderBy: orderBy,
                                                    limit: limit, offset: offset)) }
        return (0..<result.rowCount).map { objectID(entity.name, primaryKey: result.int($0, 0)) }
    }

    package func count(_ entity: EntityDescription, join: String, where condition: SQLFragment?) throws -> Int {
        let filter: SQLFragment = condition.map { " WHERE \($0)" } ?? ""
        let result = try read { try $0.query("SELECT COUNT(*) FROM \(raw: SQLSchema.table(entity)) t0\(filter)") }
        return Int(result.int(0, 0))
    }

    package func aggregate(_ plan: AggregatePlan, excluding excluded: [Int64], into table: inout GroupTable) throws {
        var bindings = plan.condition?.bindings ?? []
        if !excluded.isEmpty { bindings.append(SQLDialect.keyList(excluded)) }
        let result = try read { try $0.query(SQLFragment(plan.sql(excludingKeys: !excluded.isEmpty), bindings)) }
        for row in 0..<result.rowCount {
            table.add(values: plan.columns.indices.map { result.value(row, $0, as: plan.columns[$0].type) })
        }
    }

    private func select(_ columns: String, from table: EntityTable, where condition: SQLFragment?, orderBy: String?,
                        limit: Int?, offset: Int) -> SQLFragment {
        let filter: SQLFragment = condition.map { " WHERE \($0)" } ?? ""
        let order = (orderBy.map { " ORDER BY \($0)" } ?? "") + dialect.limitClause(limit: limit, offset: offset)
        return "SELECT \(raw: columns) FROM \(raw: table.table) t0\(filter)\(raw: order)"
    }

    /// A row selected with `table.selectList`, decoded.
    func snapshot(_ result: PostgreSQLResult, row: Int, table: EntityTable) -> (ObjectID, RowSnapshot) {
        var values = [StoredValue](repeating: .unloaded, count: table.propertyCount)
        for (n, column) in table.columns.enumerated() {
            let position = n + 2
            switch column.kind {
            case .attribute(let type):
                values[column.index] = result.value(row, position, as: type)
            case .toOne(let destination):
                values[column.index] = result.isNull(row, position)
                    ? .null : .reference(objectID(entityCode: destination, primaryKey: result.int(row, position)))
            }
        }
        return (objectID(entityCode: table.entityCode, primaryKey: result.int(row, 0)),
                RowSnapshot.make(values: values, version: result.int(row, 1)))
    }

    // MARK: Writing

    package func save(_ request: SaveRequest) throws -> SaveResult {
        try write { db in
            var transaction = SaveTransaction(writer: PostgreSQLSaveWriter(store: self, db: db), request: request)
            return try transaction.run()
        }
    }

    package func obtainPermanentIDs(_ ids: [ObjectID]) throws -> [ObjectID: ObjectID] {
        let grouped = Dictionary(grouping: ids.filter(\.isTemporaryID), by: \.entityName)
        return try pool.write { db in
            try db.transaction {
                var result: [ObjectID: ObjectID] = [:]
                for (name, group) in grouped {
                    guard let entity = model.entity(named: name) else { continue }
                    for (id, pk) in zip(group, try reserveKeys(entity, count: group.count, in: db)) {
                        result[id] = objectID(name, primaryKey: pk)
                    }
                }
                return result
            }
        }
    }

    /// `count` keys from the entity's identity sequence (unique, not necessarily contiguous).
    func reserveKeys(_ entity: EntityDescription, count: Int, in db: PostgreSQLConnection) throws -> [Int64] {
        guard count > 0 else { return [] }
        let table = StoredValue.string(SQLSchema.table(entity))
        let result = try db.query("SELECT nextval(pg_get_serial_sequence(\(table), '_pk')) FROM generate_series(1, \(.int(Int64(count))))")
        return (0..<result.rowCount).map { result.int($0, 0) }
    }

    /// Runs a write transaction on the writer connection, announcing it with `pg_notify`
    /// inside the transaction (delivered when it commits). A transaction the server aborted for
    /// a concurrent one (serialization failure, deadlock) runs again, a bounded number of times
    /// (``PostgreSQLTransactionRetry``): `body` must only touch the database.
    func write<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        try PostgreSQLTransactionRetry.run(location: location) {
            try pool.write { db in
                try db.transaction {
                    let result = try body(db)
                    try db.run("SELECT pg_notify(\(.string(channel)), '')")
                    return result
                }
            }
        }
    }

    // MARK: Remote changes

    /// The signal of every commit to this store's database (its own included), counted by a
    /// `LISTEN` connection of its own; an answer is never reused (it is a counter in memory).
    package func makeChangeSignal(reusingAnswersFor interval: Duration) throws -> any StoreChangeSignal {
        try listener.withLock { listener in
            if let listener { return listener.signal }
            let made = try PostgreSQLChangeListener(conninfo: conninfo, location: location, sessionSetup: sessionSetup,
                                                    channel: channel)
            listener = made
            return made.signal
        }
    }
}

extension PersistentStoreCoordinator {
    /// Opens a PostgreSQL store for this coordinator's model (see ``PostgreSQLStore``).
    ///
    /// ```swift
    /// try coordinator.addPostgreSQLStore(.init(url: "postgresql://app@127.0.0.1:5432/invoices", recordsHistory: true),
    ///                                    postsRemoteChangeNotifications: true)
    /// ```
    /// - Throws: ``StoreError``.
    public func addPostgreSQLStore(_ configuration: PostgreSQLStore.Configuration,
                                   postsRemoteChangeNotifications: Bool = false) throws {
        var configuration = configuration
        configuration.recordsHistory = configuration.recordsHistory || postsRemoteChangeNotifications
        if storeIdentifier != nil { throw StoreError.storeAlreadyAdded }
        try addPersistentStore(PostgreSQLStore(configuration, model: model),
                               postsRemoteChangeNotifications: postsRemoteChangeNotifications)
    }
}
