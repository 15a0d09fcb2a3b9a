import Foundation
import ObjectGraphPostgreSQL
import Testing
import TestSupport
@testable import ObjectGraph

/// A kind of store a test runs against. Tests of what a store promises take it as their
/// argument, so each runs once per store, from one body:
///
/// ```swift
/// @Test(arguments: TestStore.all) func aSaveWritesEveryValue(_ store: TestStore) async throws {
///     let coordinator = try store.coordinator()
///     …
/// }
/// ```
///
/// Tests that open one store with several coordinators (another process, a restart, a stale
/// copy) take ``shared``: an in-memory store is its coordinator's alone.
///
/// **PostgreSQL** runs on a server of the test process's own (``PostgreSQLServer``), a schema
/// per location. When PostgreSQL is not installed it is left out of ``all``, and
/// `PostgreSQLAvailabilityTests` is skipped saying so: the other stores still run, and the
/// gap is visible. Tests of what the PostgreSQL store does not do (text
/// holding U+0000) take ``sqlite``.
struct TestStore: Sendable, Hashable, CustomTestStringConvertible {
    enum Kind: String, Sendable, Hashable {
        /// An SQLite file in a temporary folder.
        case sqliteFile = "SQLite file"
        /// SQLite's `:memory:` database.
        case inMemory = "in-memory"
        /// A schema of its own on the test process's PostgreSQL server.
        case postgreSQL = "PostgreSQL"
    }

    let kind: Kind

    static let sqliteFile = TestStore(kind: .sqliteFile)
    static let inMemory = TestStore(kind: .inMemory)
    static let postgreSQL = TestStore(kind: .postgreSQL)

    /// The SQLite stores (file and in-memory).
    static let sqlite: [TestStore] = [.sqliteFile, .inMemory]
    /// Every store: PostgreSQL too when its server runs.
    static let all: [TestStore] = sqlite + (isPostgreSQLAvailable ? [.postgreSQL] : [])
    /// Whether the test process's PostgreSQL server runs.
    static var isPostgreSQLAvailable: Bool {
        if case .success = PostgreSQLServer.shared { return true }
        return false
    }
    /// The stores several coordinators can open at once.
    static let shared: [TestStore] = all.filter(\.isShared)

    var testDescription: String { kind.rawValue }

    /// Whether another coordinator (or process) can open the same store.
    var isShared: Bool {
        switch kind {
        case .sqliteFile, .postgreSQL: true
        case .inMemory: false
        }
    }

    /// A new, empty store for one test.
    func makeLocation() -> StoreLocation {
        switch kind {
        case .sqliteFile: StoreLocation(store: self, url: TestStack.fileURL())
        case .inMemory, .postgreSQL: StoreLocation(store: self, url: nil)
        }
    }

    /// A coordinator on a new, empty store.
    func coordinator(model: ManagedObjectModel = TestStack.model, recordsHistory: Bool = false,
                     postsRemoteChangeNotifications: Bool = false) throws -> PersistentStoreCoordinator {
        try makeLocation().coordinator(model: model, recordsHistory: recordsHistory,
                                       postsRemoteChangeNotifications: postsRemoteChangeNotifications)
    }
}

/// One test's store: where its coordinators open it.
struct StoreLocation: Sendable {
    let store: TestStore
    /// The SQLite file (nil in memory and on PostgreSQL).
    let url: URL?
    /// The PostgreSQL schema.
    let schema = "og_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    /// Whether the location's one coordinator was made (for stores that are not shared).
    private let opened = OnceFlag()

    init(store: TestStore, url: URL?) {
        self.store = store
        self.url = url
    }

    struct NotShared: Error, CustomStringConvertible {
        let store: TestStore
        var description: String {
            "the \(store.kind.rawValue) store cannot be opened by a second coordinator: run this test with TestStore.shared"
        }
    }

    /// A coordinator on the store (migrating it with `plan` when it is of an earlier version).
    /// On a store that is not shared, only the first call opens it: later ones would open
    /// another, empty store, so they throw.
    func coordinator(model: ManagedObjectModel = TestStack.model, recordsHistory: Bool = false,
                     postsRemoteChangeNotifications: Bool = false,
                     plan: MigrationPlan? = nil) throws -> PersistentStoreCoordinator {
        var description: PersistentStoreDescription
        switch store.kind {
        case .postgreSQL:
            let server = try PostgreSQLServer.shared.get()
            let coordinator = PersistentStoreCoordinator(model: model)
            var configuration = PostgreSQLStore.Configuration(url: server.url(), schema: schema, recordsHistory: recordsHistory)
            configuration.migrationPlan = plan
            try coordinator.addPostgreSQLStore(configuration, postsRemoteChangeNotifications: postsRemoteChangeNotifications)
            return coordinator
        case .sqliteFile:
            guard let url else { throw NotShared(store: store) }
            description = .sqlite(at: url, recordsHistory: recordsHistory,
                                  postsRemoteChangeNotifications: postsRemoteChangeNotifications)
        case .inMemory:
            guard opened.claim() else { throw NotShared(store: store) }
            var memory = PersistentStoreDescription.inMemory()
            memory.recordsHistory = recordsHistory || postsRemoteChangeNotifications
            memory.postsRemoteChangeNotifications = postsRemoteChangeNotifications
            description = memory
        }
        description.migrationPlan = plan
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(description)
        return coordinator
    }

    /// Removes the store's files (a store in memory goes with its coordinator).
    func cleanUp() {
        if let url { StoreFileState.cleanUp(url) }
    }

    /// A coordinator that reads what `coordinator` saved from the store itself, not from
    /// memory: a second coordinator on a shared store; for a store of one coordinator, the
    /// same coordinator with its row cache emptied.
    func freshReader(of coordinator: PersistentStoreCoordinator, model: ManagedObjectModel = TestStack.model) throws
        -> PersistentStoreCoordinator {
        guard store.isShared else {
            coordinator.rowCache.invalidateAll()
            return coordinator
        }
        return try self.coordinator(model: model)
    }
}

/// A flag that can be claimed once.
private final class OnceFlag: Sendable {
    private let claimed = Locked(false)

    /// True the first time only.
    func claim() -> Bool {
        claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }
}
