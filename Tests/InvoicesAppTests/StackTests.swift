import Foundation
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
