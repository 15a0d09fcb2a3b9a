import Foundation
import Testing
@testable import ObjectGraph

/// `PersistentStoreDescription.readerCacheSize` sets each reader connection's page cache;
/// without it, readers keep SQLite's default.
@Suite struct ReaderCacheSizeTests {
    /// The `cache_size` a reader of `coordinator`'s store reports (negative: KiB).
    private func readerCacheSize(_ coordinator: PersistentStoreCoordinator) throws -> Int64 {
        try coordinator.requireSQLiteStore().pool.read { db in
            let statement = try db.statement("PRAGMA cache_size")
            defer { statement.reset() }
            _ = try statement.step()
            return statement.int(at: 0)
        }
    }

    @Test func aReaderHoldsThePagesItWasGiven() throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        var description = PersistentStoreDescription.sqlite(at: url)
        description.readerCacheSize = 8 << 20
        let coordinator = PersistentStoreCoordinator(model: TestStack.model)
        try coordinator.addPersistentStore(description)
        #expect(try readerCacheSize(coordinator) == -8_192)
    }

    @Test func withoutASizeAReaderKeepsSQLitesDefault() throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = PersistentStoreCoordinator(model: TestStack.model)
        try coordinator.addPersistentStore(.sqlite(at: url))
        #expect(try readerCacheSize(coordinator) == -2_000)
    }
}
