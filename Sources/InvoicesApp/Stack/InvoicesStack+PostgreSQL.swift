import Foundation
import Logging
import ObjectGraph
import ObjectGraphPostgreSQL

extension InvoicesStack {
    /// Opens the stack on a PostgreSQL database (`postgresql://USER@HOST:PORT/DBNAME`), which
    /// several servers and `invoices import` processes may share: the schema is created on
    /// first use (once, even when several servers start together), every write records
    /// persistent history, and commits are announced with `NOTIFY`.
    ///
    /// A database of an earlier version of the model is migrated with the app's plan when its
    /// stages only add; otherwise it is refused, naming what the stage would change.
    /// - Throws: ``StackError/store(path:_:)`` with ``StoreError/unreachable(location:reason:)``
    ///   when the server cannot be reached, or the store's reason for refusing the database.
    public convenience init(postgreSQL url: String, persist: PersistMode = .immediate,
                            logger: Logger = Logger(label: "invoices")) throws(StackError) {
        try self.init(postgreSQL: url, persist: persist, logger: logger, model: nil)
    }

    /// The same over another model than ``InvoicesModel`` (tests), with deferred flushes timed
    /// by `timekeeper`.
    convenience init(postgreSQL url: String, persist: PersistMode = .immediate, logger: Logger = Logger(label: "invoices"),
                     model: ManagedObjectModel?, schema: String? = nil,
                     timekeeper: Timekeeper = .continuous) throws(StackError) {
        try self.init(store: .postgreSQL(url: url), persist: persist, logger: logger, model: model,
                      timekeeper: timekeeper) { coordinator, plan throws(StoreError) in
            let store: PostgreSQLStore
            // The list searches' trigram indexes are declared in the model
            // (`.indexedForSubstringSearch`), for SQLite's store and this one alike.
            var configuration = PostgreSQLStore.Configuration(url: url, schema: schema, recordsHistory: true)
            configuration.migrationPlan = plan
            do {
                store = try PostgreSQLStore(configuration, model: coordinator.model)
                try coordinator.addPersistentStore(store, postsRemoteChangeNotifications: true)
            } catch let error as StoreError {
                throw error
            } catch let error as MigrationError {
                throw .incompatibleModel(path: StoreLocation.postgreSQL(url: url).description, differences: [error.description])
            } catch {
                throw .unreachable(location: StoreLocation.postgreSQL(url: url).description, reason: "\(error)")
            }
            return store
        }
    }

    /// Runs `body` alone among the processes sharing the store (a PostgreSQL advisory lock);
    /// on SQLite, the file's write lock already keeps a check-then-fill in one transaction
    /// per process, and `body` simply runs.
    func exclusively<T>(_ name: String, _ body: () async throws -> T) async throws -> T {
        guard let sharedStore else { return try await body() }
        return try await sharedStore.withExclusiveLock(named: name, body)
    }
}

extension InvoicesStack {
    /// Opens the stack on the store `location` names: what `serve` and `import` do.
    /// - Parameter busyTimeout: how long an SQLite write waits for another process's lock.
    /// - Throws: ``StackError``.
    public static func open(_ location: StoreLocation, persist: PersistMode = .immediate,
                            busyTimeout: TimeInterval = 5) throws(StackError) -> InvoicesStack {
        switch location {
        case .sqlite(let url): try InvoicesStack(storeURL: url, persist: persist, busyTimeout: busyTimeout)
        case .postgreSQL(let url): try InvoicesStack(postgreSQL: url, persist: persist)
        case .inMemory: try InvoicesStack.inMemory(persist: persist)
        }
    }
}

extension InvoicesStack {
    /// The author recorded in history for a save by `who` (a visitor's label): on a store
    /// several servers share, with this server's name ("visitor 3f9a2c on s1"), so the other
    /// servers' inspectors and history pages say where the change came from.
    public func author(_ who: String) -> String {
        if case .postgreSQL = store { "\(who) on \(serverName.value)" } else { who }
    }
}
