import CSQLite
import Foundation
import Testing
@testable import ObjectGraph

/// The SQLite store checkpoints its WAL on a queue of its own (`WALCheckpointer`): a save
/// that grows the WAL past SQLite's threshold returns before its pages are copied into the
/// database file, the copy happens beside the next work, and the WAL starts over.
@Suite struct WALCheckpointerTests {
    /// A save of about 5 MB: 2,000 invoices with 2,500 characters of notes each.
    private static func saveLargeBatch(_ context: ManagedObjectContext, prefix: String) async throws {
        try await context.perform {
            let client = Client(context: context)
            client.name = "Client \(prefix)"
            for n in 0..<2_000 {
                let invoice = Invoice(context: context)
                invoice.identifier = "\(prefix)-\(n)"
                invoice.notes = String(repeating: "n", count: 2_500)
                invoice.client = client
            }
            try context.save()
            context.reset()
        }
    }

    /// Waits until `condition` holds, for at most ten seconds.
    private static func eventually(_ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    @Test func aLargeSaveIsCheckpointedOffTheWritersThreadAndTheWALStartsOver() async throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try TestStack.coordinator(at: url)
        let checkpointer = try #require(try coordinator.requireSQLiteStore().checkpointer)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)

        try await Self.saveLargeBatch(context, prefix: "A")
        #expect(checkpointer.walPages.load(ordering: .relaxed) >= checkpointer.startPages)
        #expect(try await Self.eventually { checkpointer.backgroundCheckpoints.load(ordering: .relaxed) >= 1 })
        #expect(checkpointer.inlineCheckpoints.load(ordering: .relaxed) == 0)
        #expect(checkpointer.lastFailure.load(ordering: .relaxed) == 0)

        // The database file alone now holds the rows: a copy of it without its WAL has them all.
        let copy = url.deletingLastPathComponent().appendingPathComponent("copy.sqlite")
        try FileManager.default.copyItem(at: url, to: copy)
        #expect(try RawSQLite.rows("SELECT count(*) FROM Invoice", at: copy) == [["2000"]])

        // The next save writes the WAL from its start again, rather than after the copied pages.
        try await context.perform {
            let client = Client(context: context)
            client.name = "Client B"
            try context.save()
        }
        #expect(checkpointer.walPages.load(ordering: .relaxed) < 100)
    }

    /// A small save stays in the WAL (the store leaves it there below SQLite's threshold);
    /// `checkpoint()` copies it into the database file at once.
    @Test func checkpointCopiesWhatTheWALHoldsIntoTheFileNow() async throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try TestStack.coordinator(at: url)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let client = Client(context: context)
            client.name = "Small"
            try context.save()
        }
        // The file alone, as a copy without the WAL: nil when it does not even have the table.
        func copiedClients(_ name: String) throws -> [[String?]]? {
            let copy = url.deletingLastPathComponent().appendingPathComponent(name)
            try FileManager.default.copyItem(at: url, to: copy)
            return try? RawSQLite.rows("SELECT name FROM Client", at: copy)
        }
        #expect(try copiedClients("before.sqlite") ?? [] == [])
        try coordinator.checkpoint()
        #expect(try copiedClients("after.sqlite") == [["Small"]])
        // Nothing to copy in memory, and nothing to refuse.
        try TestStack.inMemoryCoordinator().checkpoint()
    }

    @Test func closingTheStoreLeavesNoWALAndEverySavedRow() async throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        do {
            let coordinator = try TestStack.coordinator(at: url)
            let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
            try await Self.saveLargeBatch(context, prefix: "A")
            try await Self.saveLargeBatch(context, prefix: "B")
        }
        // The checkpointer closed first; the writer, last, checkpointed and removed the WAL.
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        #expect(try RawSQLite.rows("SELECT count(*) FROM Invoice", at: url) == [["4000"]])
    }

    /// Far behind (or, here, with a threshold of two pages), the writer checkpoints within its
    /// commit, as SQLite would: the WAL stays bounded.
    @Test func aCommitPastTheInlineLengthCheckpointsWithinIt() throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let writer = try SQLiteConnection(path: url.path, readOnly: false, create: true, busyTimeout: 5)
        try writer.execute("PRAGMA journal_mode = WAL")
        try writer.execute("CREATE TABLE t (x BLOB)")
        let checkpointer = try WALCheckpointer(path: url.path, vfs: nil, busyTimeout: 5,
                                               startPages: 1, restartPages: 1, inlinePages: 2)
        checkpointer.install(on: writer)
        defer { checkpointer.stop() }
        try writer.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20)
            INSERT INTO t SELECT zeroblob(5000) FROM n
            """)
        #expect(checkpointer.inlineCheckpoints.load(ordering: .relaxed) == 1)
        #expect(checkpointer.walPages.load(ordering: .relaxed) >= 2)
        #expect(try RawSQLite.rows("SELECT count(*) FROM t", at: url) == [["20"]])
    }
}
