import Foundation
import Synchronization
import Testing
@testable import ObjectGraph

@Suite struct MergingTests {
    /// shared/seeds/000: an import context beside the nested chain, merged into both.
    @Test func anImportContextsSaveIsMergedIntoTheWriterAndTheMainContext() async throws {
        let stack = try Stack()
        let id = try await stack.writer.perform { () -> ObjectID in
            let client = Client(context: stack.writer)
            client.name = "Acme"
            client.city = "Paris"
            try stack.writer.save()
            return client.objectID
        }
        let shown = try stack.main.performAndWait { try stack.main.existingObject(with: id, as: Client.self) }
        let importer = ManagedObjectContext(.privateQueue, coordinator: stack.coordinator, name: "import")
        let observer = Observer(importer, into: [stack.writer, stack.main])
        defer { observer.stop() }
        try await importer.perform {
            try importer.existingObject(with: id, as: Client.self).city = "Berlin"
            Client(context: importer).name = "Imported"
            try importer.save()
        }
        #expect(stack.main.performAndWait { shown.city } == "Berlin")
        let names = try await stack.main.perform { try stack.main.fetch(FetchRequest<Client>(sortBy: [SortDescriptor(\.name)])).map(\.name) }
        #expect(names == ["Acme", "Imported"])
    }

    @Test func noMergeIsLostWhenTheWriterAndAnImportTouchTheSameObject() async throws {
        let stack = try Stack()
        let id = try await stack.writer.perform { () -> ObjectID in
            let client = Client(context: stack.writer)
            client.name = "Acme"
            client.city = "Paris"
            try stack.writer.save()
            return client.objectID
        }
        // The writer holds an unsaved edit of the name (deferred save)...
        let held = try stack.writer.performAndWait { () -> Client in
            let client = try stack.writer.existingObject(with: id, as: Client.self)
            client.name = "Acme Corp"
            return client
        }
        // ...while an import changes the city of the same client.
        let importer = ManagedObjectContext(.privateQueue, coordinator: stack.coordinator)
        let observer = Observer(importer, into: [stack.writer])
        defer { observer.stop() }
        try await importer.perform {
            try importer.existingObject(with: id, as: Client.self).city = "Berlin"
            try importer.save()
        }
        try await stack.writer.perform { try stack.writer.save() }     // no conflict: the merge refreshed the version
        let reader = ManagedObjectContext(.privateQueue, coordinator: stack.coordinator)
        let stored = try await reader.perform { () -> (String, String?) in
            let client = try reader.existingObject(with: id, as: Client.self)
            return (client.name, client.city)
        }
        #expect(stored.0 == "Acme Corp")
        #expect(stored.1 == "Berlin")
        withExtendedLifetime(held) {}
    }

    @Test func mergingKeepsLocalUnsavedEditsOnTop() async throws {
        let coordinator = try TestStack.coordinator()
        let mine = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let theirs = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let id = try await mine.perform { () -> ObjectID in
            let client = Client(context: mine)
            client.name = "Acme"
            try mine.save()
            return client.objectID
        }
        let held = try mine.performAndWait { () -> Client in
            let client = try mine.existingObject(with: id, as: Client.self)
            client.name = "Local edit"
            return client
        }
        let note = LockedBox<ChangeSet?>(nil)
        let token = NotificationCenter.default.addObserver(forName: ManagedObjectContext.didSaveNotification, object: theirs, queue: nil) {
            note.set(ChangeSet(didSave: $0))
        }
        try await theirs.perform {
            try theirs.existingObject(with: id, as: Client.self).city = "Lisbon"
            try theirs.save()
        }
        NotificationCenter.default.removeObserver(token)
        let saved = try #require(note.get())
        mine.performAndWait { mine.mergeChanges(saved) }
        #expect(mine.performAndWait { (held.name, held.city, held.isUpdated) } == ("Local edit", "Lisbon", true))
    }

    @Test func aDeleteMergedFromElsewhereLeavesAReadableObject() async throws {
        let coordinator = try TestStack.coordinator()
        let mine = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let id = try await mine.perform { () -> ObjectID in
            let client = Client(context: mine)
            client.name = "Doomed"
            try mine.save()
            return client.objectID
        }
        let held = try mine.performAndWait { try mine.existingObject(with: id, as: Client.self) }
        let other = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await other.perform {
            other.delete(try other.existingObject(with: id))
            try other.save()
        }
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: [.deleted: [id]], into: [mine])
        #expect(mine.performAndWait { (held.name, held.isDeletedElsewhere) } == ("Doomed", true))
        #expect(try await mine.perform { try mine.fetch(FetchRequest<Client>()).count } == 0)
    }

    @Test func childrenMadeWithNewChildContextMergeTheirParentsSaves() async throws {
        let stack = try Stack()
        let id = try await stack.main.perform { () -> ObjectID in
            let client = Client(context: stack.main)
            client.name = "Acme"
            try stack.main.save()
            return client.objectID
        }
        let viewer = stack.main.newChildContext(name: "viewer")
        let editor = stack.main.newChildContext(name: "editor")
        let shown = try viewer.performAndWait { try viewer.existingObject(with: id, as: Client.self) }
        try await editor.perform {
            try editor.existingObject(with: id, as: Client.self).name = "Acme Corp"
            try editor.save()
        }
        await viewer.perform(schedule: .enqueued) {}
        #expect(viewer.performAndWait { shown.name } == "Acme Corp")

        let manual = ManagedObjectContext(.privateQueue, parent: stack.main)
        #expect(!manual.automaticallyMergesChangesFromParent)
    }

    @Test func theChangeStreamReportsSavesAndMerges() async throws {
        let stack = try Stack()
        let scratch = stack.main.newChildContext(name: "scratch")
        var iterator = stack.main.changes.makeAsyncIterator()
        var scratchIterator = scratch.changes.makeAsyncIterator()
        let id = try await scratch.perform { () -> ObjectID in
            let client = Client(context: scratch)
            client.name = "Acme"
            try scratch.save()
            return client.objectID
        }
        let fromScratch = await scratchIterator.next()
        #expect(fromScratch?.origin == .save && fromScratch?.inserted == [id])
        try await stack.main.perform { try stack.main.save() }
        let fromMain = await iterator.next()
        #expect(fromMain?.origin == .save)
        #expect(fromMain?.inserted.count == 1)
        _ = iterator
    }
}

/// Merges an import context's saves into contexts, as an app wires it.
final class Observer: @unchecked Sendable {
    // @unchecked Sendable: `token` is written once in init and read in stop().
    private var token: NSObjectProtocol?
    init(_ source: ManagedObjectContext, into contexts: [ManagedObjectContext]) {
        token = NotificationCenter.default.addObserver(forName: ManagedObjectContext.didSaveNotification,
                                                       object: source, queue: nil) { note in
            let info = note.userInfo ?? [:]
            func ids(_ key: ManagedObjectContext.ChangeKey) -> [ObjectID] { Array(info[key.rawValue] as? Set<ObjectID> ?? []) }
            ManagedObjectContext.mergeChanges(fromRemoteContextSave: [.inserted: ids(.inserted), .updated: ids(.updated), .deleted: ids(.deleted)],
                                              into: contexts)
        }
    }
    func stop() { token.map(NotificationCenter.default.removeObserver) }
}
