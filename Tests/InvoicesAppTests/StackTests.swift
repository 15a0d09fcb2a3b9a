import Foundation
import Synchronization
import ObjectGraph
import Testing
@testable import InvoicesApp

@Suite struct StackTests {
    @Test(arguments: StackStore.all) func theStackIsAWriterAMainChildAndIndependentImportContexts(_ store: StackStore) async throws {
        let stack = try await makeStack(store)
        #expect(stack.writer.parent == nil && stack.writer.concurrencyType == .privateQueue)
        #expect(stack.main.parent === stack.writer && stack.main.concurrencyType == .mainQueue)
        let scratchpad = stack.newScratchpad()
        #expect(scratchpad.parent === stack.main && scratchpad.concurrencyType == .privateQueue)
        let importer = stack.newImportContext()
        #expect(importer.parent == nil && importer.persistentStoreCoordinator === stack.coordinator)
    }

    @Test(arguments: StackStore.all)
    func aScratchpadSaveReachesMainAndOnlyTheWritersSaveReachesTheFile(_ store: StackStore) async throws {
        let location = try await store.makeLocation()
        let stack = try await openStack(location)
        let scratchpad = stack.newScratchpad()
        try await scratchpad.perform {
            scratchpad.makeClient("Draft Client")
            try scratchpad.save()
        }
        #expect(try await stack.clientPage(ClientQuery()).items.map(\.name) == ["Draft Client"])
        let elsewhere = try await openStack(location)
        #expect(try await elsewhere.clientPage(ClientQuery()).totalCount == 0)

        let main = stack.main, writer = stack.writer
        try await main.perform { try main.save() }
        try await writer.perform { try writer.save() }
        #expect(try await elsewhere.clientPage(ClientQuery()).items.map(\.name) == ["Draft Client"])
    }

    @Test(arguments: StackStore.all) func aDroppedScratchpadLeavesMainUntouched(_ store: StackStore) async throws {
        let stack = try await makeStack(store)
        do {
            let scratchpad = stack.newScratchpad()
            await scratchpad.perform { _ = scratchpad.makeClient("Never Saved") }
        }
        #expect(try await stack.clientPage(ClientQuery()).totalCount == 0)
    }

    @Test func pageReadsRunSeveralAtOnceButNoMoreThanTheStacksLimit() async throws {
        // Given a stack on a file, and many more reads at once than its limit
        let stack = try InvoicesStack(storeURL: TestFiles.folder().appendingPathComponent("reads.sqlite"))
        let limit = InvoicesStack.concurrentNestedBlocks
        #expect(stack.coordinator.maximumConcurrentNestedBlocks == limit)
        let running = ConcurrencyGauge()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<(limit * 4) {
                group.addTask {
                    try await stack.read { reader in
                        running.enter()
                        defer { running.leave() }
                        usleep(20_000)
                        return try reader.count(for: FetchRequest<Client>())
                    }
                }
            }
            for try await count in group { #expect(count == 0) }
        }
        // Then they overlapped, up to the limit and never past it
        let most = running.most
        #expect(most > 1 && most <= limit, "\(most) at once, limit \(limit)")
    }

    @Test func aMissingFolderIsCreatedForTheDatabase() async throws {
        let database = TestFiles.folder().appendingPathComponent("nested/deeper/invoices.sqlite")
        let stack = try InvoicesStack(storeURL: database)
        #expect(try await stack.clientPage(ClientQuery()).totalCount == 0)
        #expect(FileManager.default.fileExists(atPath: database.path))
    }

    @Test func aFileThatIsNotADatabaseIsRefusedWithAnActionableMessage() throws {
        let file = TestFiles.folder().appendingPathComponent("notes.sqlite")
        try String(repeating: "hello\n", count: 500).write(to: file, atomically: true, encoding: .utf8)
        #expect {
            try InvoicesStack(storeURL: file)
        } throws: { error in
            "\(error)".contains("is not an SQLite database")
        }
    }

    @Test func persistModesParseFromTheCommandLine() {
        #expect(PersistMode(argument: "immediate") == .immediate)
        #expect(PersistMode(argument: "deferred=5") == .deferred(seconds: 5))
        #expect(PersistMode(argument: "deferred=0.5")?.description == "deferred=0.5")
        for bad in ["deferred", "deferred=0", "deferred=-1", "deferred=x", "later", "deferred=999999"] {
            #expect(PersistMode(argument: bad) == nil, "\(bad)")
        }
    }
}

/// How many callers are between `enter()` and `leave()` at once, and the most there were.
private final class ConcurrencyGauge: Sendable {
    private let state = Mutex((now: 0, most: 0))
    var most: Int { state.withLock { $0.most } }
    func enter() { state.withLock { $0.now += 1; $0.most = max($0.most, $0.now) } }
    func leave() { state.withLock { $0.now -= 1 } }
}
