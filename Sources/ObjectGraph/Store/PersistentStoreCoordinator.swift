import Foundation
import Synchronization

/// Connects contexts to a store: owns the store, the model and the row cache its contexts
/// share.
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(model: model)
/// try coordinator.addPersistentStore(.sqlite(at: url))
/// ```
///
/// Several coordinators may open the same SQLite file (in one process or several); they
/// share nothing in memory, and row versions catch what one wrote under the other. The
/// coordinator speaks to its store only through ``PersistentStore``.
public final class PersistentStoreCoordinator: Sendable {
    public let model: ManagedObjectModel
    let rowCache = RowCache()
    let storage = Locked<(any PersistentStore)?>(nil)
    /// Temporary → permanent IDs of objects saved through this coordinator, so a context
    /// that still refers to an object by its temporary ID (its re-keying is enqueued behind
    /// the block it runs) saves it correctly.
    private let permanentIDs = Locked<[ObjectID: ObjectID]>([:])
    /// Subscribers of `remoteChanges`.
    let remoteSubscribers = Locked<[UUID: AsyncStream<RemoteChange>.Continuation]>([:])
    /// Watches the store for other writers' commits (when the description asks for it).
    private let monitor = Locked<RemoteChangeMonitor?>(nil)
    /// The store's change signal offered to the app, made at the first request.
    private let offeredSignal = Locked<(any StoreChangeSignal)?>(nil)

    /// Bounds the blocks of nested private-queue contexts that run at once (see
    /// ``BlockLimiter``).
    let nestedBlocks: BlockLimiter

    /// How many blocks of nested private-queue contexts run at once; the others wait their
    /// turn, in order, without a thread (see ``init(model:maximumConcurrentNestedBlocks:)``).
    public var maximumConcurrentNestedBlocks: Int { nestedBlocks.limit }

    /// - Parameter maximumConcurrentNestedBlocks: nil (the default) shares the process's
    ///   limit of ``BlockLimiter/processLimit`` blocks of nested private-queue contexts
    ///   running at once with every other coordinator: Dispatch's threads (255 on Linux) are
    ///   the process's, so the bound must be too. A number gives this coordinator a limit of
    ///   its own, for a process that knows its other coordinators keep to theirs. A server
    ///   whose requests each read in a nested context can give a small number (a few per
    ///   core): blocks then run to their end in the order they came instead of sharing the
    ///   cores with dozens of others, and a request's wait no longer grows with how many
    ///   others are in flight.
    public init(model: ManagedObjectModel, maximumConcurrentNestedBlocks: Int? = nil) {
        self.model = model
        nestedBlocks = maximumConcurrentNestedBlocks.map { BlockLimiter(limit: $0) } ?? .shared
    }

    /// Opens (or creates) the store.
    /// - Throws: ``StoreError`` when the file cannot be used: not a database, not writable,
    ///   locked past the busy timeout, or written by an incompatible model. The file is left
    ///   untouched in each case.
    public func addPersistentStore(_ description: PersistentStoreDescription) throws {
        if description.postsRemoteChangeNotifications && !description.recordsHistory {
            throw StoreError.invalidConfiguration("postsRemoteChangeNotifications needs recordsHistory: remote changes are read from persistent history. Set both.")
        }
        if storage.withLock({ $0 != nil }) { throw StoreError.storeAlreadyAdded }
        try addPersistentStore(try SQLiteStore(description, model: model),
                               postsRemoteChangeNotifications: description.postsRemoteChangeNotifications,
                               remoteChangeCheckInterval: description.remoteChangeCheckInterval)
    }

    /// Adds a store opened by another module of the package (ObjectGraphPostgreSQL's
    /// `PostgreSQLStore`), made for this coordinator's model.
    ///
    /// - Parameters:
    ///   - postsRemoteChangeNotifications: watch the store for other writers' commits and
    ///     announce them (``remoteChanges``); the store must record history.
    ///   - remoteChangeCheckInterval: how often the store's change signal is read.
    /// - Throws: ``StoreError/storeAlreadyAdded``, ``StoreError/invalidConfiguration(_:)``,
    ///   or the store's error when it cannot be watched.
    package func addPersistentStore(_ store: any PersistentStore, postsRemoteChangeNotifications: Bool = false,
                                   remoteChangeCheckInterval: TimeInterval = 0.02) throws {
        if postsRemoteChangeNotifications && !store.recordsHistory {
            throw StoreError.invalidConfiguration("postsRemoteChangeNotifications needs a store that records history: remote changes are read from persistent history.")
        }
        // The monitor is made before the store is published: if it cannot be, nothing was added.
        var watcher: RemoteChangeMonitor?
        if postsRemoteChangeNotifications && store.isShared {
            watcher = try RemoteChangeMonitor(store: store, interval: remoteChangeCheckInterval)
        }
        try storage.withLock {
            if $0 != nil { throw StoreError.storeAlreadyAdded }
            $0 = store
        }
        if let watcher {
            monitor.withLock { $0 = watcher }
            watcher.start { [weak self] change in self?.announce(change) }
        }
    }

    deinit {
        monitor.withLock { $0?.stop() }
        // `remoteChanges` sequences end with the coordinator.
        for continuation in remoteSubscribers.withLock({ Array($0.values) }) { continuation.finish() }
    }

    /// Gives a migration's coordinator its store: one over the connection the migration
    /// holds in its transaction.
    func attachMigrationStore(_ store: any PersistentStore) {
        storage.withLock { $0 = store }
    }

    /// What adding the store migrated: nil when the file needed no migration (or no store
    /// was added), else whether this coordinator ran the plan's stages (with the backup's
    /// location) or found the file migrated by another process while it waited.
    public var migrationOutcome: MigrationOutcome? { storage.withLock { $0?.migrationOutcome } }

    /// The model version recorded in the store file at `url`, read without changing it; nil
    /// when there is no file or it holds no tables yet. A file written before versions were
    /// recorded reads as 1. Lets an app tell, before opening, whether a migration will run.
    /// - Throws: ``StoreError`` when the file cannot be read or is not an ObjectGraph store.
    public static func modelVersion(ofStoreAt url: URL) throws -> Int? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let db = try SQLiteConnection(path: url.path, readOnly: true, create: false, busyTimeout: 5)
        guard try SQLiteStore.metadata("storeUUID", in: db) != nil else {
            let tables = try db.uncachedStatement("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'")
            defer { tables.reset() }
            _ = try tables.step()
            if tables.int(at: 0) == 0 { return nil }
            throw StoreError.incompatibleModel(path: url.path, differences: [
                "the file has tables but no ObjectGraph metadata: it was not made by ObjectGraph"])
        }
        return try SQLiteStore.recordedVersion(in: db)
    }

    /// The store's unique identifier (recorded in the file), nil before a store is added.
    public var storeIdentifier: UUID? { storage.withLock { $0?.identifier } }
    /// The store file's path (":memory:" for in-memory stores; a server store's address).
    public var storePath: String? { storage.withLock { $0?.location } }
    /// How many read queries the store has run (for tests and the inspector).
    var storeReadQueryCount: Int { storage.withLock { $0?.executedReadQueries ?? 0 } }
    /// The SQL dialect fetches translate to: the store's (SQLite's before a store is added).
    var dialect: SQLDialect { storage.withLock { $0?.dialect } ?? .sqlite }

    /// A number that changes whenever another coordinator, process or server commits to the
    /// store (see ``StoreChangeSignal``), cheap enough to read on every request: an answer is
    /// reused for at most 2 ms. The same signal is returned at every call. An in-memory store
    /// has one that never changes (nobody else can write to it).
    ///
    /// Commits of this coordinator's contexts count too, but they are better heard from the
    /// contexts' own notifications, which come before the save returns.
    /// - Throws: ``StoreError/noStore``, or ``StoreError`` when the store cannot be watched.
    public func storeChangeSignal() throws -> any StoreChangeSignal {
        let store = try requireStore()
        return try offeredSignal.withLock { offered in
            if let offered { return offered }
            let made = try store.makeChangeSignal(reusingAnswersFor: .milliseconds(2))
            offered = made
            return made
        }
    }

    /// How many rows the row cache holds.
    public var rowCacheCount: Int { rowCache.count }

    /// Copies the pages the store's write-ahead log holds into the database file now, after
    /// the checkpoint the store may be running in the background (an SQLite file; other
    /// stores have nothing to copy).
    ///
    /// The store does this on its own after large saves, beside your next work, so a save
    /// does not wait for it. Call it when the database file alone must be current, for
    /// instance before copying it without its `-wal` file, or to time a write whole.
    /// - Throws: ``StoreError`` when no store is added or SQLite refuses the checkpoint.
    public func checkpoint() throws {
        try requireStore().checkpoint()
    }

    func requireStore() throws -> any PersistentStore {
        guard let store = storage.withLock({ $0 }) else { throw StoreError.noStore }
        return store
    }

    /// The permanent ID a URI names, without touching the row.
    ///
    /// - Returns: nil when the URI names another store (or an entity not in the model).
    /// - Throws: ``ObjectIDURIError`` for a temporary ID's URI or a string that is not an
    ///   ObjectGraph URI.
    public func managedObjectID(forURIRepresentation uri: URL) throws -> ObjectID? {
        guard let id = ObjectID(uri: uri) else { throw ObjectIDURIError.malformed(uri.absoluteString) }
        if id.isTemporaryID { throw ObjectIDURIError.temporaryID(uri.absoluteString) }
        guard id.storeCode == storage.withLock({ $0?.storeCode }), model.entity(of: id) != nil else { return nil }
        return id
    }

    /// The permanent ID of the row with this primary key (for keys that arrive from
    /// outside, such as `/clients/42`); nil before a store is added. The row is not read.
    public func managedObjectID<T: ManagedObject>(for type: T.Type, primaryKey: Int64) -> ObjectID? {
        guard let store = storage.withLock({ $0?.storeCode }), let entity = model.entity(for: type), primaryKey > 0 else {
            return nil
        }
        return ObjectID(entityCode: entity.code, storeCode: store, value: primaryKey)
    }

    // MARK: Reads for contexts

    /// A row: from the cache, else from the store (and then cached).
    func snapshot(for id: ObjectID, entity: EntityDescription) throws -> RowSnapshot? {
        if let cached = rowCache.snapshot(for: id) { return cached }
        return try freshSnapshot(for: id, entity: entity)
    }

    /// A row read from the store now, bypassing the cache (and then cached).
    func freshSnapshot(for id: ObjectID, entity: EntityDescription) throws -> RowSnapshot? {
        guard let pk = id.primaryKey else { return nil }
        let store = try requireStore()
        guard id.storeCode == store.storeCode else { return nil }
        guard let row = try store.row(primaryKey: pk, entity: entity) else { return nil }
        rowCache.store([(id, row)])
        return row
    }

    /// Reads the rows of `entity` with these primary keys into the row cache's prefetch pool
    /// (a fetch's ``FetchRequest/relationshipKeyPathsForPrefetching``), a few hundred keys a
    /// query.
    func prefetchRows(of entity: EntityDescription, primaryKeys: [Int64]) throws {
        let store = try requireStore()
        let dialect = self.dialect
        for start in stride(from: 0, to: primaryKeys.count, by: 500) {
            let chunk = primaryKeys[start..<min(primaryKeys.count, start + 500)]
            let keys = dialect.includesKeys("t0._pk", chunk)
            rowCache.store(try store.fetchRows(entity, join: "", where: keys, orderBy: nil, limit: nil, offset: 0))
        }
    }

    func destinations(of id: ObjectID, relationship: RelationshipDescription,
                      entity: EntityDescription) throws -> [ObjectID] {
        guard let pk = id.primaryKey else { return [] }
        let rows = try requireStore().destinations(of: pk, relationship: relationship, entity: entity)
        rowCache.store(rows)
        return rows.map(\.0)
    }

    /// The IDs of a to-many relationship's destinations without their rows: what keeping an
    /// inverse in step needs. (An import adding invoices to clients would otherwise read every
    /// invoice of each client into the row cache.)
    func destinationIDs(of id: ObjectID, relationship: RelationshipDescription,
                        entity: EntityDescription) throws -> [ObjectID] {
        guard let pk = id.primaryKey else { return [] }
        guard relationship.cardinality != .orderedToMany,
              case .inverseForeignKey(_, let column) = SQLSchema.mapping(of: relationship, in: entity, model: model),
              let destination = model.entity(named: relationship.destinationEntityName) else {
            return try destinations(of: id, relationship: relationship, entity: entity)
        }
        return try requireStore().fetchIDs(destination, join: "", where: "t0.\(raw: column) = \(.int(pk))",
                                           orderBy: "t0._pk", limit: nil, offset: 0)
    }

    func recordPermanentIDs(_ map: [ObjectID: ObjectID]) {
        guard !map.isEmpty else { return }
        permanentIDs.withLock { $0.merge(map) { _, new in new } }
    }

    func permanentID(for temporary: ObjectID) -> ObjectID? {
        permanentIDs.withLock { $0.isEmpty ? nil : $0[temporary] }
    }

    func save(_ request: SaveRequest) throws -> SaveResult {
        let store = try requireStore()
        var request = request
        request.resolveTemporaryID = { [weak self] id in self?.permanentID(for: id) }
        let result: SaveResult
        do {
            result = try store.save(request)
        } catch SaveError.mergeConflict(let conflicts) {
            // The cached rows are older than the file's: forget them, so that refreshing an
            // object (what the error tells the caller to do) reads what the file holds.
            for conflict in conflicts { rowCache.invalidate(conflict.objectID) }
            throw SaveError.mergeConflict(conflicts)
        }
        rowCache.apply(written: result.written.mapValues(\.cacheable), deleted: result.deleted)
        for (id, row) in result.rolledBack {
            if let row { rowCache.store([(id, row)]) } else { rowCache.invalidate(id) }
        }
        return result
    }

    func obtainPermanentIDs(_ ids: [ObjectID]) throws -> [ObjectID: ObjectID] {
        try requireStore().obtainPermanentIDs(ids)
    }
}

/// Why a URI could not be turned into an object ID.
public enum ObjectIDURIError: Error, CustomStringConvertible, Sendable, Equatable {
    case malformed(String)
    case temporaryID(String)

    public var description: String {
        switch self {
        case .malformed(let s):
            return "\(s) is not an ObjectGraph object URI (x-objectgraph://<store>/<Entity>/p<key>)."
        case .temporaryID(let s):
            return "\(s) names a temporary ID: it means nothing outside the context that made it. Save the object first and use its permanent ID."
        }
    }
}
