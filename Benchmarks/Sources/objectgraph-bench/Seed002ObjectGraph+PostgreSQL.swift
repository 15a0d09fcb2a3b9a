import ObjectGraph
import ObjectGraphPostgreSQL

extension Seed002ObjectGraph {
    /// ObjectGraph on `PostgreSQLStore`, opened as its users open it: the store makes its
    /// tables on first use; no history recorded (like the SQLite engine), the default pool.
    convenience init(postgreSQL url: String) throws {
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        try coordinator.addPostgreSQLStore(PostgreSQLStore.Configuration(url: url))
        self.init(coordinator: coordinator)
    }
}
