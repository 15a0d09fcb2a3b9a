import Foundation
@testable import ObjectGraph

extension PersistentStoreCoordinator {
    /// What `PRAGMA name` reports on the writer connection of the coordinator's SQLite store.
    func writerPragma(_ name: String) throws -> Int64 {
        try requireSQLiteStore().pool.write { db in try Self.pragma(name, on: db) }
    }

    /// What `PRAGMA name` reports on a reader connection of the coordinator's SQLite store.
    func readerPragma(_ name: String) throws -> Int64 {
        try requireSQLiteStore().pool.read { db in try Self.pragma(name, on: db) }
    }

    private static func pragma(_ name: String, on db: SQLiteConnection) throws -> Int64 {
        let statement = try db.statement("PRAGMA \(name)")
        defer { statement.reset() }
        _ = try statement.step()
        return statement.int(at: 0)
    }
}
