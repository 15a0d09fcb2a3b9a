import Foundation
import Testing
@testable import ObjectGraph

/// `FetchRequest.relationshipKeyPathsForPrefetching`: the rows of to-one destinations come
/// with the fetch, one query per relationship, and reading them runs no query per object.
@Suite struct PrefetchingTests {
    /// Five clients with four invoices each, saved through a coordinator of their own, and a
    /// new coordinator on the same store, whose row cache is empty.
    private func seeded(_ store: TestStore) async throws -> PersistentStoreCoordinator {
        let location = store.makeLocation()
        let writer = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator())
        try await writer.perform {
            for n in 0..<5 {
                let client = Client(context: writer)
                client.name = "Client \(n)"
                for m in 0..<4 {
                    let invoice = Invoice(context: writer)
                    invoice.identifier = "INV-\(n)-\(m)"
                    invoice.client = client
                }
            }
            try writer.save()
        }
        return try location.coordinator()
    }

    private static let byIdentifier = [SortDescriptor(\Invoice.identifier)]

    @Test(arguments: TestStore.shared) func readingPrefetchedDestinationsRunsNoQuery(_ store: TestStore) async throws {
        let coordinator = try await seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            var request = FetchRequest<Invoice>(sortBy: Self.byIdentifier)
            request.relationshipKeyPathsForPrefetching = [\Invoice.client]
            let before = coordinator.storeReadQueryCount
            let invoices = try context.fetch(request)
            #expect(coordinator.storeReadQueryCount - before == 2)
            let names = invoices.map { $0.client?.name ?? "none" }
            #expect(coordinator.storeReadQueryCount - before == 2)
            #expect(names == (0..<5).flatMap { n in Array(repeating: "Client \(n)", count: 4) })
        }
    }

    @Test(arguments: TestStore.shared) func withoutPrefetchingEachDestinationIsAQueryOfItsOwn(_ store: TestStore) async throws {
        let coordinator = try await seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let before = coordinator.storeReadQueryCount
            let invoices = try context.fetch(FetchRequest<Invoice>(sortBy: Self.byIdentifier))
            _ = invoices.map { $0.client?.name }
            #expect(coordinator.storeReadQueryCount - before == 1 + 5)
        }
    }

    @Test(arguments: TestStore.shared) func destinationsAlreadyCachedOrLoadedAreNotReadAgain(_ store: TestStore) async throws {
        let coordinator = try await seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let clients = try context.fetch(FetchRequest<Client>())
            #expect(clients.count == 5)
            var request = FetchRequest<Invoice>(sortBy: Self.byIdentifier)
            request.relationshipKeyPathsForPrefetching = [\Invoice.client]
            let before = coordinator.storeReadQueryCount
            let invoices = try context.fetch(request)
            #expect(coordinator.storeReadQueryCount - before == 1)
            #expect(Set(invoices.compactMap { $0.client?.name }).count == 5)
            withExtendedLifetime(clients) {}
        }
    }

    @Test(arguments: TestStore.all) func aChildSeesItsParentsUnsavedEditOfAPrefetchedDestination(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let parent = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let clientID = try await parent.perform {
            let client = Client(context: parent)
            client.name = "Acme"
            let invoice = Invoice(context: parent)
            invoice.identifier = "A-1"
            invoice.client = client
            try parent.save()
            client.name = "Acme Renamed"
            return client.objectID
        }
        let child = ManagedObjectContext(.privateQueue, parent: parent)
        let name = try await child.perform {
            var request = FetchRequest<Invoice>()
            request.relationshipKeyPathsForPrefetching = [\Invoice.client]
            let invoice = try #require(try child.fetch(request).first)
            #expect(invoice.client?.objectID == clientID)
            return invoice.client?.name
        }
        #expect(name == "Acme Renamed")
    }

    @Test func aKeyPathThatIsNotAToOneRelationshipIsRefusedByName() async throws {
        let coordinator = try TestStore.sqliteFile.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        await context.perform {
            var invoices = FetchRequest<Invoice>()
            invoices.relationshipKeyPathsForPrefetching = [\Invoice.identifier]
            #expect { try context.fetch(invoices) } throws: { error in
                guard case FetchError.unsupportedPrefetch = error else { return false }
                return "\(error)".contains("to-one relationships")
            }
            var clients = FetchRequest<Client>()
            clients.relationshipKeyPathsForPrefetching = [\Client.invoices]
            #expect(throws: FetchError.self) { try context.fetch(clients) }
        }
    }
}
