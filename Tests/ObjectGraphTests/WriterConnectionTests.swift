import Foundation
import Testing
@testable import ObjectGraph

/// The writer connection's settings: its page cache (`PersistentStoreDescription.writerCacheSize`)
/// and statement journals held in memory, not in temporary files.
@Suite struct WriterConnectionTests {
    /// What `PRAGMA name` reports on the writer of `coordinator`'s store.
    private func writerPragma(_ name: String, _ coordinator: PersistentStoreCoordinator) throws -> Int64 {
        try coordinator.requireSQLiteStore().pool.write { db in
            let statement = try db.statement("PRAGMA \(name)")
            defer { statement.reset() }
            _ = try statement.step()
            return statement.int(at: 0)
        }
    }

    @Test func theWriterHoldsThePagesItWasGiven() throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        var description = PersistentStoreDescription.sqlite(at: url)
        description.writerCacheSize = 8 << 20
        let coordinator = PersistentStoreCoordinator(model: TestStack.model)
        try coordinator.addPersistentStore(description)
        #expect(try writerPragma("cache_size", coordinator) == -8_192)
        // Readers keep their own setting.
        let reader = try coordinator.requireSQLiteStore().pool.read { db in
            let statement = try db.statement("PRAGMA cache_size")
            defer { statement.reset() }
            _ = try statement.step()
            return statement.int(at: 0)
        }
        #expect(reader == -2_000)
    }

    @Test func withoutASizeTheWriterKeepsSQLitesDefault() throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = PersistentStoreCoordinator(model: TestStack.model)
        try coordinator.addPersistentStore(.sqlite(at: url))
        #expect(try writerPragma("cache_size", coordinator) == -2_000)
    }

    /// 2 is MEMORY: a save's statement journals (and temporary tables) stay off the disk.
    @Test func statementJournalsStayInMemory() throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = PersistentStoreCoordinator(model: TestStack.model)
        try coordinator.addPersistentStore(.sqlite(at: url))
        #expect(try writerPragma("temp_store", coordinator) == 2)
    }
}
