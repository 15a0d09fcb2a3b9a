import Foundation
import Testing
@testable import ObjectGraph

@Suite struct FaultingTests {
    private func seed(_ coordinator: PersistentStoreCoordinator, clients: Int, invoicesEach: Int = 0) async throws -> [ObjectID] {
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        return try await context.perform {
            var ids: [Client] = []
            for n in 0..<clients {
                let client = Client(context: context)
                client.name = "Client \(n)"
                for m in 0..<invoicesEach {
                    let invoice = Invoice(context: context)
                    invoice.identifier = "INV-\(n)-\(m)"
                    invoice.amount = Decimal(m)
                    invoice.client = client
                }
                ids.append(client)
            }
            try context.save()
            return ids.map(\.objectID)
        }
    }

    @Test(arguments: TestStore.all) func aContextHoldsOneInstancePerID(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let ids = try await seed(coordinator, clients: 3, invoicesEach: 1)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let fetched = try context.fetch(FetchRequest<Client>())
            let looked = try context.object(with: ids[0])
            #expect(fetched.contains { $0 === looked })
            let invoice = try context.fetch(FetchRequest<Invoice>()).first { $0.client === looked }
            #expect(invoice?.client === looked)
            #expect(try context.fetch(FetchRequest<Client>()).map(ObjectIdentifier.init) == fetched.map(ObjectIdentifier.init))
        }
    }

    @Test(arguments: TestStore.all) func objectWithReturnsAFaultWithoutIO(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let ids = try await seed(coordinator, clients: 1)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        await context.perform {
            let before = coordinator.storeReadQueryCount
            let object = try? context.object(with: ids[0])
            #expect(object?.isFault == true)
            #expect(coordinator.storeReadQueryCount == before)
        }
    }

    @Test(arguments: TestStore.all) func firingAFaultWhoseRowIsCachedRunsNoSQL(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let ids = try await seed(coordinator, clients: 5)
        let first = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let second = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        // The first context's fetch fills the coordinator's row cache, and its objects (held
        // here) keep the rows there...
        let held = try first.performAndWait { try first.fetch(FetchRequest<Client>()) }
        #expect(held.count == 5)
        // ...which the second context's faults use.
        try second.performAndWait {
            let before = coordinator.storeReadQueryCount
            let names = try ids.map { try second.existingObject(with: $0, as: Client.self).name }
            #expect(names.count == 5)
            #expect(coordinator.storeReadQueryCount == before)
        }
        withExtendedLifetime(held) {}
    }

    @Test(arguments: TestStore.all) func fetchingManyObjectsRunsOneQueryAndReadingThemRunsNone(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        // Many batches of the streamed fetch (1,024 rows) and of registration (3,072), yet
        // few enough that the unoptimized ThreadSanitizer build seeds them in seconds (at
        // 100,000 this one test was the last of that run to end, after 3.5 minutes).
        _ = try await seed(coordinator, clients: 20_000)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let before = coordinator.storeReadQueryCount
            let clients = try context.fetch(FetchRequest<Client>())
            #expect(coordinator.storeReadQueryCount - before == 1)
            let total = clients.reduce(0) { $0 + $1.name.count + ($1.email?.count ?? 0) + ($1.city?.count ?? 0) + ($1.isActive ? 1 : 0) }
            #expect(total > 0)
            #expect(coordinator.storeReadQueryCount - before == 1)
        }
    }

    @Test(arguments: TestStore.all) func rowCacheEntriesAreDroppedWhenNoContextHoldsTheObject(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        _ = try await seed(coordinator, clients: 10)
        let baseline = coordinator.rowCache.heldCount
        do {
            let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
            let count = try await context.perform { try context.fetch(FetchRequest<Client>()).count }
            #expect(count == 10)
            // The fetched objects were not kept by the block: nothing holds them.
            #expect(coordinator.rowCache.heldCount == baseline)
            let kept = try await context.perform { () -> Int in
                let objects = try context.fetch(FetchRequest<Client>())
                return coordinator.rowCache.heldCount - baseline + 0 * objects.count
            }
            #expect(kept == 10)
        }
        #expect(coordinator.rowCache.heldCount == baseline)
    }

    @Test(arguments: TestStore.all) func existingObjectThrowsForARowThatDoesNotExist(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let store = try #require(coordinator.storeIdentifier)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let missing = ObjectID(entityName: "Client", key: .permanent(store: store, primaryKey: 12345))
        await context.perform {
            do {
                _ = try context.existingObject(with: missing)
                Issue.record("expected objectNotFound")
            } catch let error as ContextError {
                #expect(error == .objectNotFound(missing))
                #expect(error.code == 133000)
            } catch { Issue.record("\(error)") }
        }
    }

    @Test(arguments: TestStore.shared) func anObjectDeletedElsewhereReadsItsLastValuesInsteadOfTrapping(_ store: TestStore) async throws {
        let location = store.makeLocation()
        let coordinator = try location.coordinator()
        let ids = try await seed(coordinator, clients: 1)
        let reader = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let deleter = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator())
        try await deleter.perform {
            context: do {
                let client = try deleter.existingObject(with: ids[0])
                deleter.delete(client)
                try deleter.save()
            }
        }
        try await reader.perform {
            let client = try reader.object(with: ids[0], as: Client.self)
            #expect(client.name == "")          // never loaded: the defaults
            #expect(client.isDeletedElsewhere)
            client.name = "Edited"
            #expect(throws: SaveError.self) { try reader.save() }
        }
    }

    @Test(arguments: TestStore.all) func aTemporaryIDFromAnotherHierarchyIsRejectedAtOnce(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let a = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let b = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let temporary = await a.perform {
            let client = Client(context: a)
            client.name = "Unsaved"
            return client.objectID
        }
        await b.perform {
            #expect(throws: ContextError.temporaryIDOutsideHierarchy(temporary)) { try b.object(with: temporary) }
            #expect(b.registeredObjects.isEmpty)
        }
    }
}
