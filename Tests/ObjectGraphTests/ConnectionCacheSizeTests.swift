import Foundation
import Testing
@testable import ObjectGraph

/// `PersistentStoreDescription.readerCacheSize` and `writerCacheSize` set each connection's
/// page cache; without them, connections keep SQLite's default. One does not set the other.
@Suite struct ConnectionCacheSizeTests {
    enum Connection: String, CaseIterable, Sendable { case reader, writer }

    private func cacheSize(of connection: Connection, _ coordinator: PersistentStoreCoordinator) throws -> Int64 {
        switch connection {
        case .reader: try coordinator.readerPragma("cache_size")
        case .writer: try coordinator.writerPragma("cache_size")
        }
    }

    @Test(arguments: Connection.allCases) func aConnectionHoldsThePagesItWasGiven(_ connection: Connection) throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        var description = PersistentStoreDescription.sqlite(at: url)
        switch connection {
        case .reader: description.readerCacheSize = 8 << 20
        case .writer: description.writerCacheSize = 8 << 20
        }
        let coordinator = PersistentStoreCoordinator(model: TestStack.model)
        try coordinator.addPersistentStore(description)
        #expect(try cacheSize(of: connection, coordinator) == -8_192)
        let other: Connection = connection == .reader ? .writer : .reader
        #expect(try cacheSize(of: other, coordinator) == -2_000)
    }

    @Test(arguments: Connection.allCases) func withoutASizeAConnectionKeepsSQLitesDefault(_ connection: Connection) throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = PersistentStoreCoordinator(model: TestStack.model)
        try coordinator.addPersistentStore(.sqlite(at: url))
        #expect(try cacheSize(of: connection, coordinator) == -2_000)
    }
}
