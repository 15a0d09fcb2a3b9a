import Foundation
import Synchronization
import Testing
@testable import ObjectGraph

@Suite struct PerformTests {
    @Test func performRunsBlocksInOrderOnThePrivateQueue() async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try TestStack.inMemoryCoordinator())
        let order = Locked<[Int]>([])
        // In async code `perform { }` means the async overload; the fire-and-forget one is
        // what synchronous code calls.
        func enqueue(_ i: Int) { context.perform { order.withLock { $0.append(i) } } }
        for i in 0..<50 { enqueue(i) }
        await context.perform(schedule: .enqueued) { }
        #expect(order.withLock { $0 } == Array(0..<50))
    }

    @Test func performAndWaitIsReentrant() throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try TestStack.inMemoryCoordinator())
        let value = context.performAndWait {
            context.performAndWait { 21 } * 2
        }
        #expect(value == 42)
    }

    @Test func asyncPerformReturnsTheBlocksValueAndRethrows() async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try TestStack.inMemoryCoordinator())
        let name = await context.perform { () -> String in
            let client = Client(context: context)
            client.name = "Acme"
            return client.name
        }
        #expect(name == "Acme")
        struct Boom: Error, Equatable {}
        await #expect(throws: Boom.self) {
            try await context.perform { () throws(Boom) -> Int in throw Boom() }
        }
    }

    /// Main-actor code and a main-queue context: the block scheduled first cannot run before
    /// this test suspends, so the order does not depend on timing; `.immediate` would run
    /// "second" first (see the next test).
    @MainActor @Test func enqueuedWaitsBehindBlocksAlreadyScheduled() async throws {
        let context = ManagedObjectContext(.mainQueue, coordinator: try TestStack.inMemoryCoordinator())
        let log = Locked<[String]>([])
        func schedule(_ entry: String) { context.perform { log.withLock { $0.append(entry) } } }
        schedule("first")
        await context.perform(schedule: .enqueued) { log.withLock { $0.append("second") } }
        #expect(log.withLock { $0 } == ["first", "second"])
    }

    /// SEMANTICS.md §1: `.immediate` runs inline when the caller is already on the
    /// context's queue (main-actor code and a main-queue context), ahead of a block
    /// scheduled before it; `.enqueued` waits behind it.
    @MainActor @Test func immediateRunsInlineForACallerOnTheContextsQueue() async throws {
        let context = ManagedObjectContext(.mainQueue, coordinator: try TestStack.inMemoryCoordinator())
        let log = Locked<[String]>([])
        func schedule(_ entry: String) { context.perform { log.withLock { $0.append(entry) } } }
        schedule("scheduled earlier")
        await context.perform(schedule: .immediate) { log.withLock { $0.append("immediate") } }
        #expect(log.withLock { $0 } == ["immediate"])
        schedule("scheduled later")
        await context.perform(schedule: .enqueued) { log.withLock { $0.append("enqueued") } }
        #expect(log.withLock { $0 } == ["immediate", "scheduled earlier", "scheduled later", "enqueued"])
    }

    @Test func aMainQueueContextRunsItsBlocksOnTheMainThread() async throws {
        let context = ManagedObjectContext(.mainQueue, coordinator: try TestStack.inMemoryCoordinator())
        let onMain = await context.perform { () -> Bool in
            dispatchPrecondition(condition: .onQueue(DispatchQueue.main))
            return ManagedObjectContext.isOnMainQueue && context.isOnQueue
        }
        #expect(onMain)
    }
}

@Suite struct ChangeTrackingTests {
    @Test func insertUpdateAndDeleteAreTrackedUntilSaved() async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator())
        try await context.perform {
            #expect(!context.hasChanges)
            let a = Client(context: context)
            a.name = "A"
            let b = Client(context: context)
            b.name = "B"
            #expect(context.insertedObjects == [a, b])
            try context.save()
            #expect(!context.hasChanges)
            a.city = "Paris"
            context.delete(b)
            context.processPendingChanges()
            #expect(context.updatedObjects == [a])
            #expect(context.deletedObjects == [b])
            #expect(a.isUpdated && b.isDeleted)
            #expect(context.hasChanges)
        }
    }

    @Test func changedValuesListsOnlyPropertiesThatDifferFromTheCommittedOnes() async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator())
        try await context.perform {
            let client = Client(context: context)
            client.name = "Acme"
            client.city = "Paris"
            try context.save()
            client.city = "Lyon"
            client.name = "Acme"            // same value: not a change
            let changed = client.changedValues()
            #expect(Set(changed.keys) == ["city"])
            #expect(changed["city"] as? String == "Lyon")
            #expect(client.committedValues(forKeys: ["city"])["city"] as? String == "Paris")
            client.city = "Paris"            // back to the committed value
            #expect(client.changedValues().isEmpty)
            #expect(!client.isUpdated)
        }
    }

    @Test func insertThenDeleteBeforeSavingLeavesNoTrace() async throws {
        let coordinator = try TestStack.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let client = Client(context: context)
            client.name = "Ghost"
            context.delete(client)
            context.processPendingChanges()
            #expect(context.insertedObjects.isEmpty)
            #expect(context.deletedObjects.isEmpty)
            #expect(!context.hasChanges)
            try context.save()
            #expect(try context.count(for: FetchRequest<Client>()) == 0)
        }
    }

    @Test func rollbackRestoresCommittedValuesAndForgetsInserts() async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator())
        try await context.perform {
            let kept = Client(context: context)
            kept.name = "Kept"
            try context.save()
            kept.name = "Changed"
            let doomed = Client(context: context)
            doomed.name = "New"
            context.delete(kept)
            context.rollback()
            #expect(kept.name == "Kept")
            #expect(!kept.isDeleted)
            #expect(doomed.managedObjectContext == nil)
            #expect(!context.hasChanges)
            #expect(try context.fetch(FetchRequest<Client>()).map(\.name) == ["Kept"])
        }
    }

    @Test func resetForgetsEveryObject() async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator())
        try await context.perform {
            let client = Client(context: context)
            client.name = "Acme"
            try context.save()
            let id = client.objectID
            let unsaved = Client(context: context)
            unsaved.name = "Unsaved"
            context.reset()
            #expect(client.managedObjectContext == nil)
            #expect(context.registeredObject(for: id) == nil)
            #expect(!context.hasChanges)
            let again = try context.existingObject(with: id, as: Client.self)
            #expect(again !== client)
            #expect(again.name == "Acme")
        }
    }

    @Test func refreshWithoutMergeTurnsTheObjectIntoAFaultAndDropsChanges() async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator())
        try await context.perform {
            let client = Client(context: context)
            client.name = "Acme"
            try context.save()
            client.name = "Edited"
            context.refresh(client, mergeChanges: false)
            #expect(client.isFault)
            #expect(client.name == "Acme")
            #expect(!context.hasChanges)
        }
    }

    @Test func refreshWithMergeReloadsAndKeepsLocalEditsOnTop() async throws {
        let coordinator = try TestStack.coordinator()
        let mine = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let theirs = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let id = try await mine.perform {
            let client = Client(context: mine)
            client.name = "Acme"
            client.city = "Paris"
            try mine.save()
            return client.objectID
        }
        try await theirs.perform {
            let client = try theirs.existingObject(with: id, as: Client.self)
            client.city = "Berlin"
            try theirs.save()
        }
        try await mine.perform {
            let client = try mine.existingObject(with: id, as: Client.self)
            client.name = "Acme GmbH"
            mine.refresh(client, mergeChanges: true)
            #expect(client.city == "Berlin")
            #expect(client.name == "Acme GmbH")
            #expect(client.isUpdated)
            try mine.save()     // the version was refreshed: no conflict
        }
    }

    @Test func objectsDidChangeIsPostedWithTheIDsAtTheEndOfABlock() async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator())
        let received = Locked<[Set<ObjectID>]>([])
        let token = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.objectsDidChangeNotification, object: context, queue: nil) { note in
            let inserted = note.userInfo?[ManagedObjectContext.ChangeKey.inserted.rawValue] as? Set<ObjectID> ?? []
            received.withLock { $0.append(inserted) }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let id = await context.perform {
            let client = Client(context: context)
            client.name = "Acme"
            return client.objectID
        }
        #expect(received.withLock { $0 } == [[id]])
    }
}
