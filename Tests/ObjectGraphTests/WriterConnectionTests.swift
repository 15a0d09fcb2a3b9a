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

    /// A context's save holds its statement journals in memory (temp_store 2, MEMORY); a
    /// batch request, whose one statement may change every row of a table, keeps temporary
    /// files (0, the default), and the next save goes back to memory.
    @Test func savesJournalInMemoryAndBatchRequestsInFiles() async throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try TestStack.coordinator(at: url)
        #expect(try writerPragma("temp_store", coordinator) == 0)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            for n in 0..<50 {
                let client = Client(context: context)
                client.name = "Client \(n)"
            }
            try context.save()
        }
        #expect(try writerPragma("temp_store", coordinator) == 2)

        var values = PropertyValues<Client>()
        values.set(\.city, to: "Graz")
        let result = try coordinator.execute(BatchUpdateRequest<Client>(set: values))
        #expect(result.count == 50)
        #expect(try writerPragma("temp_store", coordinator) == 0)

        try await context.perform {
            let client = Client(context: context)
            client.name = "Client 50"
            try context.save()
        }
        #expect(try writerPragma("temp_store", coordinator) == 2)
        let inGraz = try await context.perform {
            try context.count(for: FetchRequest<Client>(predicate: #Predicate { $0.city == "Graz" }))
        }
        #expect(inGraz == 50)
    }
}
