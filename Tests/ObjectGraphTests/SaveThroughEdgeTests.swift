import Foundation
import Synchronization
import Testing
@testable import ObjectGraph

/// `saveToStore()` where the chain holds things of its own: relationships loaded or not,
/// inserts made permanent early, policies that keep the store's row, objects deleted while
/// the save is under way, and a competing save between the check and the write.
@Suite struct SaveThroughEdgeTests {
    /// A client with two tags, saved.
    private func taggedClient(_ stack: DeepStack) async throws -> (client: ObjectID, tags: [ObjectID]) {
        try await stack.writer.perform { () throws -> (ObjectID, [ObjectID]) in
            let client = Client(context: stack.writer)
            client.name = "Tagged"
            let tags = ["red", "blue"].map { label -> Tag in
                let tag = Tag(context: stack.writer)
                tag.label = label
                return tag
            }
            client.tags = Set(tags)
            try stack.writer.save()
            return (client.objectID, tags.map(\.objectID))
        }
    }

    private func storedTags(of client: ObjectID, at url: URL) async throws -> Set<String> {
        let reader = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator(at: url))
        return try await reader.perform { Set(try reader.existingObject(with: client, as: Client.self).tags.map(\.label)) }
    }

    @Test func aRemovalFromAToManyReachesTheStoreWhenAnAncestorHoldsTheObjectUnloaded() async throws {
        let stack = try DeepStack()
        let (client, tags) = try await taggedClient(stack)
        // The writer and main hold the client as fetched: its tags not loaded.
        for context in [stack.writer, stack.main] {
            _ = try await context.perform { try context.fetch(FetchRequest<Client>()).map(\.name) }
        }
        try await stack.child.perform {
            let object = try stack.child.existingObject(with: client, as: Client.self)
            object.tags = object.tags.filter { $0.objectID != tags[0] }
        }
        try await stack.child.saveToStore()
        #expect(try await storedTags(of: client, at: stack.url) == ["blue"])
        let mainTags = try await stack.main.perform {
            Set(try stack.main.existingObject(with: client, as: Client.self).tags.map(\.label))
        }
        #expect(mainTags == ["blue"])
    }

    @Test func aReorderAloneReachesTheStore() async throws {
        let stack = try DeepStack()
        let project = try await stack.writer.perform { () throws -> ObjectID in
            let project = Project(context: stack.writer)
            project.title = "Launch"
            project.tasks = ["a", "b", "c"].map { title in
                let task = TaskItem(context: stack.writer)
                task.title = title
                return task
            }
            try stack.writer.save()
            return project.objectID
        }
        try await stack.child.perform {
            let object = try stack.child.existingObject(with: project, as: Project.self)
            object.tasks = object.tasks.reversed()
        }
        try await stack.child.saveToStore()
        let reader = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator(at: stack.url))
        let titles = try await reader.perform { try reader.existingObject(with: project, as: Project.self).tasks.map(\.title) }
        #expect(titles == ["c", "b", "a"])
        #expect(try await stack.child.perform { try stack.child.existingObject(with: project, as: Project.self).tasks.map(\.title) }
            == ["c", "b", "a"])
    }

    @Test func anAncestorsInsertMadePermanentEarlyIsSavedOnceWithTheChangesReferringToIt() async throws {
        let stack = try DeepStack()
        let temporary = try await stack.main.perform { () throws -> ObjectID in
            let client = Client(context: stack.main)
            client.name = "Early"
            try stack.main.obtainPermanentIDs(for: [client])
            return client.objectID
        }
        let permanent = try #require(await stack.main.perform { stack.main.registeredObject(for: temporary)?.objectID })
        #expect(!permanent.isTemporaryID)
        try await stack.child.perform {
            let client = try stack.child.existingObject(with: temporary, as: Client.self)   // by the old ID
            client.city = "Basel"
            let invoice = Invoice(context: stack.child)
            invoice.identifier = "E-1"
            invoice.client = client
        }
        try await stack.child.saveToStore()
        let stored = try await stack.storedNames()
        #expect(stored.clients == ["Early"] && stored.invoices == ["E-1"])
        #expect(await stack.main.perform { stack.main.hasChanges } == false)
        #expect(try await stack.storeCount(Client.self) == 1)
    }

    @Test func anObjectGoneFromTheStoreUnderRollbackLeavesNothingPending() async throws {
        let stack = try DeepStack()
        let seed = try await stack.seed()
        try await stack.child.perform {
            try stack.child.existingObject(with: seed.acme, as: Client.self).name = "Renamed"
            stack.child.mergePolicy = .rollback
        }
        try await Self.deleteElsewhere(seed.acme, at: stack.url)
        try await stack.child.saveToStore()
        let (pending, gone) = await stack.child.perform { () -> (Bool, Bool) in
            (stack.child.hasChanges, stack.child.registeredObject(for: seed.acme)?.isDeletedElsewhere == true)
        }
        #expect(!pending && gone)
    }

    @Test func underRollbackAnAncestorKeepsItsOwnEditOfTheObjectTheStoreKept() async throws {
        let stack = try DeepStack()
        let seed = try await stack.seed()      // main changed Beta's city, unsaved
        try await stack.child.perform {
            try stack.child.existingObject(with: seed.beta, as: Client.self).name = "Beta (child)"
            stack.child.mergePolicy = .rollback
        }
        try await Self.rename(seed.beta, to: "Beta (elsewhere)", at: stack.url)
        try await stack.child.saveToStore()
        let (name, city, pending) = try await stack.main.perform { () throws -> (String, String?, Bool) in
            let beta = try stack.main.existingObject(with: seed.beta, as: Client.self)
            return (beta.name, beta.city, beta.isUpdated)
        }
        #expect(name == "Beta (elsewhere)" && city == "Main's city" && pending)
        #expect(try await stack.child.perform { try stack.child.existingObject(with: seed.beta, as: Client.self).name }
            == "Beta (elsewhere)")
    }

    @Test func anInvalidAncestorInsertTheChangesReferToStopsTheSaveAndChangesNothing() async throws {
        let stack = try DeepStack()
        let clientID = await stack.main.perform { () -> ObjectID in
            let client = Client(context: stack.main)
            client.name = ""                                    // required: invalid
            return client.objectID
        }
        try await stack.child.perform {
            let invoice = Invoice(context: stack.child)
            invoice.identifier = "V-1"
            invoice.client = try stack.child.existingObject(with: clientID, as: Client.self)
        }
        let before = await stack.ancestorStates([])
        await #expect(throws: SaveError.self) { try await stack.child.saveToStore() }
        #expect(await stack.ancestorStates([]) == before)
        #expect(try await stack.storedNames().invoices.isEmpty)
        #expect(await stack.child.perform { stack.child.hasChanges })
    }

    @Test func aConflictFoundAboveAnAncestorRefreshesItInsteadOfMarkingTheObjectGone() async throws {
        let stack = try DeepStack()
        let seed = try await stack.seed()
        try await stack.middle.perform { _ = try stack.middle.existingObject(with: seed.acme, as: Client.self).name }
        await stack.main.perform { stack.main.reset() }     // main no longer holds Acme
        try await stack.writer.perform { try stack.writer.existingObject(with: seed.acme, as: Client.self).name = "Acme (writer)" }
        try await stack.child.perform { try stack.child.existingObject(with: seed.acme, as: Client.self).name = "Acme (child)" }
        await #expect(throws: SaveError.self) { try await stack.child.saveToStore() }
        let (gone, name) = await stack.middle.perform { () -> (Bool, String?) in
            let acme = stack.middle.registeredObject(for: seed.acme) as? Client
            return (acme?.isDeletedElsewhere ?? true, acme?.name)
        }
        #expect(!gone)
        #expect(name == "Acme (writer)")
    }

    @Test func anObjectDeletedWhileItsSaveIsUnderWayIsDeletedAtTheNextSave() async throws {
        let stack = try DeepStack()
        let id = await stack.child.perform { () -> ObjectID in
            let project = Project(context: stack.child)        // no uniqueness: nothing asks the writer early
            project.title = "Short-lived"
            return project.objectID
        }
        // The writer's queue is held (suspended: no thread waits), so the save stops before its write.
        stack.writer.queue.suspend()
        let saving = Task { try await stack.child.saveToStore() }
        while await stack.child.perform(schedule: .enqueued, { stack.child.objectsBeingSaved.isEmpty }) {
            try await Task.sleep(for: .milliseconds(1))
        }
        await stack.child.perform { if let object = stack.child.registeredObject(for: id) { stack.child.delete(object) } }
        stack.writer.queue.resume()
        try await saving.value
        #expect(try await stack.storeCount(Project.self) == 1)
        #expect(await stack.child.perform { stack.child.deletedObjects.count } == 1)
        try await stack.child.saveToStore()
        #expect(try await stack.storeCount(Project.self) == 0)
    }

    @Test func theUniqueValueIsCheckedAgainWhereTheWriteHappens() async throws {
        let coordinator = try TestStack.coordinator()
        let writer = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "writer")
        let middle = ManagedObjectContext(.privateQueue, parent: writer, name: "middle")
        let child = ManagedObjectContext(.privateQueue, parent: middle, name: "child")
        let competitor = ManagedObjectContext(.privateQueue, parent: writer, name: "competitor")
        await child.perform {
            let client = Client(context: child)
            client.name = "A"
            client.email = "x@example.com"
        }
        // Middle's queue is held (suspended), so the save waits there after the child's
        // part, while the competitor puts the same address in the writer.
        middle.queue.suspend()
        let saving = Task { try await child.saveToStore() }
        try await competitor.perform {
            let client = Client(context: competitor)
            client.name = "B"
            client.email = "x@example.com"
            try competitor.save()
        }
        middle.queue.resume()
        await #expect(throws: SaveError.self) { try await saving.value }
        #expect(try await Stack(coordinator).storeCount(Client.self) == 0)
        #expect(await child.perform { child.hasChanges })
    }

    // MARK: Helpers

    private static func deleteElsewhere(_ id: ObjectID, at url: URL) async throws {
        let other = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator(at: url))
        try await other.perform {
            other.delete(try other.existingObject(with: id))
            try other.save()
        }
    }

    private static func rename(_ id: ObjectID, to name: String, at url: URL) async throws {
        let other = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator(at: url))
        try await other.perform {
            try other.existingObject(with: id, as: Client.self).name = name
            try other.save()
        }
    }
}

extension DeepStack {
    func storeCount<T: ManagedObject>(_ type: T.Type) async throws -> Int {
        let reader = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator(at: url))
        return try await reader.perform { try reader.count(for: FetchRequest<T>()) }
    }
}
