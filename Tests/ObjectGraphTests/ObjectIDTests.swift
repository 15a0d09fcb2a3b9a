import Foundation
import Testing
@testable import ObjectGraph

@Suite struct ObjectIDTests {
    @Test func insertGivesATemporaryIDThatTheRootSaveMakesPermanent() async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator())
        let (before, after, uri) = try await context.perform {
            let client = Client(context: context)
            client.name = "Acme"
            let before = client.objectID
            try context.save()
            return (before, client.objectID, client.objectID.uriRepresentation())
        }
        #expect(before.isTemporaryID)
        #expect(!after.isTemporaryID)
        #expect(after.primaryKey != nil)
        #expect(uri.absoluteString.hasPrefix("x-objectgraph://"))
        #expect(uri.absoluteString.hasSuffix("/Client/p\(after.primaryKey ?? 0)"))
        #expect(before.uriRepresentation().absoluteString.hasPrefix("x-objectgraph:///Client/t"))
    }

    @Test func theOldTemporaryIDKeepsResolvingAfterTheSave() async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator())
        try await context.perform {
            let client = Client(context: context)
            client.name = "Acme"
            let temporary = client.objectID
            try context.save()
            #expect(try context.object(with: temporary) === client)
            #expect(context.registeredObject(for: temporary) === client)
        }
    }

    @Test func idsAreCodableAsTheirURI() throws {
        let id = ObjectID(entityName: "Client", key: .permanent(store: UUID(), primaryKey: 42))
        let data = try JSONEncoder().encode([id])
        let decoded = try JSONDecoder().decode([ObjectID].self, from: data)
        #expect(decoded == [id])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([ObjectID].self, from: Data("[\"https://x\"]".utf8)) }
    }

    @Test func idsOfTheSameRowAreEqualInEveryContextOfACoordinator() async throws {
        let coordinator = try TestStack.coordinator()
        let a = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let b = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let id = try await a.perform {
            let client = Client(context: a)
            client.name = "Acme"
            try a.save()
            return client.objectID
        }
        let fetched = try await b.perform { try b.fetch(FetchRequest<Client>()).map(\.objectID) }
        #expect(fetched == [id])
        #expect(Set(fetched).contains(id))
    }

    @Test func aPermanentURIResolvesWithoutTouchingTheRow() async throws {
        let coordinator = try TestStack.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let id = try await context.perform {
            let client = Client(context: context)
            client.name = "Acme"
            try context.save()
            return client.objectID
        }
        let resolved = try coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation())
        #expect(resolved == id)
        let missing = ObjectID(entityName: "Client", key: .permanent(store: try #require(coordinator.storeIdentifier), primaryKey: 999))
        #expect(try coordinator.managedObjectID(forURIRepresentation: missing.uriRepresentation()) == missing)
        let otherStore = ObjectID(entityName: "Client", key: .permanent(store: UUID(), primaryKey: 1))
        #expect(try coordinator.managedObjectID(forURIRepresentation: otherStore.uriRepresentation()) == nil)
        #expect(throws: ObjectIDURIError.self) {
            try coordinator.managedObjectID(forURIRepresentation: ObjectID.makeTemporary(entityName: "Client").uriRepresentation())
        }
    }

    @Test func obtainPermanentIDsMakesTheIDPermanentBeforeTheSave() async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try TestStack.coordinator())
        try await context.perform {
            let client = Client(context: context)
            client.name = "Acme"
            let temporary = client.objectID
            try context.obtainPermanentIDs(for: [client])
            let permanent = client.objectID
            #expect(!permanent.isTemporaryID)
            #expect(client.isInserted)
            try context.save()
            #expect(client.objectID == permanent)
            #expect(try context.object(with: temporary) === client)
        }
    }
}
