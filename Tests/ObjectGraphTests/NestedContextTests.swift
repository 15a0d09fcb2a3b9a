import Foundation
import Synchronization
import Testing
@testable import ObjectGraph

/// The stack of ARCHITECTURE.md: a private writer on the coordinator, a main-queue child.
struct Stack {
    let coordinator: PersistentStoreCoordinator
    let writer: ManagedObjectContext
    let main: ManagedObjectContext

    init(_ coordinator: PersistentStoreCoordinator? = nil) throws {
        let coordinator = try coordinator ?? TestStack.coordinator()
        self.coordinator = coordinator
        writer = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "writer")
        main = ManagedObjectContext(.mainQueue, parent: writer, name: "main")
    }

    func storeCount<T: ManagedObject>(_ type: T.Type) async throws -> Int {
        let reader = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        return try await reader.perform { try reader.count(for: FetchRequest<T>()) }
    }
}

@Suite struct NestedContextTests {
    @Test func aChildSaveReachesOnlyItsParentAndOnlyTheRootWrites() async throws {
        let stack = try Stack()
        let scratch = stack.main.newChildContext(name: "scratch")
        try await scratch.perform {
            let client = Client(context: scratch)
            client.name = "Acme"
            try scratch.save()
        }
        #expect(await stack.main.perform { stack.main.hasChanges })
        #expect(await stack.writer.perform { stack.writer.hasChanges } == false)
        #expect(try await stack.storeCount(Client.self) == 0)
        try await stack.main.perform { try stack.main.save() }
        #expect(await stack.writer.perform { stack.writer.hasChanges })
        #expect(try await stack.storeCount(Client.self) == 0)
        try await stack.writer.perform { try stack.writer.save() }
        #expect(try await stack.storeCount(Client.self) == 1)
    }

    @Test func siblingsNeverSeeEachOthersUnsavedEdits() async throws {
        let stack = try Stack()
        let a = stack.main.newChildContext(), b = stack.main.newChildContext()
        await a.perform { Client(context: a).name = "Only in A" }
        let seen = try await b.perform { try b.fetch(FetchRequest<Client>()).count }
        #expect(seen == 0)
        #expect(try await stack.main.perform { try stack.main.fetch(FetchRequest<Client>()).count } == 0)
    }

    @Test func aChildSeesItsAncestorsUnsavedInsertsUpdatesAndDeletes() async throws {
        let stack = try Stack()
        try await stack.writer.perform {
            for name in ["Stored A", "Stored B", "Stored C"] { Client(context: stack.writer).name = name }
            try stack.writer.save()
            Client(context: stack.writer).name = "Writer's new"            // pending in the writer
        }
        try await stack.main.perform {
            let clients = try stack.main.fetch(FetchRequest<Client>(sortBy: [SortDescriptor(\.name)]))
            clients.first { $0.name == "Stored A" }?.city = "Main's city"     // pending in main
            if let b = clients.first(where: { $0.name == "Stored B" }) { stack.main.delete(b) }
        }
        let scratch = stack.main.newChildContext()
        let view = try await scratch.perform {
            try scratch.fetch(FetchRequest<Client>(sortBy: [SortDescriptor(\.name)])).map { "\($0.name)|\($0.city ?? "")" }
        }
        #expect(view == ["Stored A|Main's city", "Stored C|", "Writer's new|"])
        let cityMatches = try await scratch.perform {
            try scratch.fetch(FetchRequest<Client>(predicate: #Predicate { $0.city == "Main's city" })).map(\.name)
        }
        #expect(cityMatches == ["Stored A"])
    }

    /// shared/seeds/002: the add-client form on a scratchpad.
    @Test func theFormScratchpadValidatesSavesUpTheChainAndMakesIDsPermanentEverywhere() async throws {
        let stack = try Stack()
        let scratch = stack.main.newChildContext(name: "form")
        let temporary = await scratch.perform { () -> ObjectID in
            let client = Client(context: scratch)
            client.name = ""                                  // invalid
            client.email = "acme@example.com"
            #expect(throws: SaveError.self) { try scratch.save() }
            #expect(scratch.hasChanges)                       // the input is kept
            client.name = "Acme"
            return client.objectID
        }
        #expect(try await stack.main.perform { try stack.main.fetch(FetchRequest<Client>()).count } == 0)
        try await scratch.perform { try scratch.save() }
        // The form and the page hold their objects (a context holds unchanged objects weakly).
        let heldByForm = try scratch.performAndWait { try scratch.existingObject(with: temporary, as: Client.self) }
        let heldByPage = try stack.main.performAndWait { try stack.main.existingObject(with: temporary, as: Client.self) }
        #expect(stack.main.performAndWait { heldByPage.name == "Acme" && heldByPage.objectID.isTemporaryID })
        try await stack.main.perform { try stack.main.save() }
        let permanent = try await stack.writer.perform { () -> ObjectID in
            let client = try stack.writer.existingObject(with: temporary, as: Client.self)
            try stack.writer.save()
            return client.objectID
        }
        #expect(!permanent.isTemporaryID)
        // Every context that holds the object was re-keyed; the old ID still resolves.
        for (context, object) in [(stack.main, heldByPage), (scratch, heldByForm)] {
            await context.perform(schedule: .enqueued) {}     // after the re-keying block
            context.performAndWait {
                #expect(object.objectID == permanent)
                #expect(context.registeredObject(for: temporary) === object)
                #expect(context.registeredObject(for: permanent) === object)
            }
        }
    }

    @Test func droppingAScratchpadLeavesNothingBehind() async throws {
        let stack = try Stack()
        do {
            let scratch = stack.main.newChildContext()
            await scratch.perform { Client(context: scratch).name = "Draft" }
        }
        #expect(await stack.main.perform { stack.main.hasChanges || !stack.main.registeredObjects.isEmpty } == false)
        #expect(stack.main.childContexts.isEmpty)
        #expect(try await stack.storeCount(Client.self) == 0)
    }

    /// shared/seeds/004 and 000: deferred saves through a private writer.
    @Test func deferredSavesPushUpWithoutTouchingDiskUntilTheWriterSaves() async throws {
        let stack = try Stack()
        let importer = ManagedObjectContext(.privateQueue, parent: stack.main, name: "import")
        try await importer.perform {
            for n in 0..<50 { Client(context: importer).name = "Imported \(n)" }
            try importer.save()
        }
        #expect(try await stack.main.perform { try stack.main.fetch(FetchRequest<Client>()).count } == 50)
        #expect(try await stack.storeCount(Client.self) == 0)
        try await stack.main.perform { try stack.main.save() }
        #expect(try await stack.storeCount(Client.self) == 0)
        try await stack.writer.save()
        #expect(try await stack.storeCount(Client.self) == 50)
    }

    @Test func theMainQueueKeepsRunningWhileTheWriterSaves() async throws {
        let stack = try Stack()
        try await stack.main.perform {
            for n in 0..<20_000 {
                let client = Client(context: stack.main)
                client.name = "Client \(n)"
            }
            try stack.main.save()
        }
        let saving = Atomic<Bool>(true)
        let ranDuringSave = Atomic<Int>(0)
        let save = Task {
            try await stack.writer.perform {
                try stack.writer.save()
                saving.store(false, ordering: .sequentiallyConsistent)
            }
        }
        while saving.load(ordering: .sequentiallyConsistent) {
            await stack.main.perform {
                if saving.load(ordering: .sequentiallyConsistent) { ranDuringSave.add(1, ordering: .relaxed) }
            }
            try await Task.sleep(for: .milliseconds(1))
        }
        try await save.value
        #expect(ranDuringSave.load(ordering: .relaxed) > 0)
        #expect(try await stack.storeCount(Client.self) == 20_000)
    }
}
