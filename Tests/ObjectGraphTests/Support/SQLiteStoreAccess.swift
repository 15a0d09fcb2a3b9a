import Foundation
@testable import ObjectGraph

/// For tests that look inside the SQLite store (its tables' SQL, its connections).
extension PersistentStoreCoordinator {
    struct NotSQLite: Error, CustomStringConvertible {
        var description: String { "the coordinator's store is not an SQLite store" }
    }

    /// The coordinator's store as the SQLite store it is.
    func requireSQLiteStore() throws -> SQLiteStore {
        guard let store = try requireStore() as? SQLiteStore else { throw NotSQLite() }
        return store
    }
}
