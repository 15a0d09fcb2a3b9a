import Foundation
import Testing
@testable import ObjectGraph

/// A store may write a save's updates many per statement (PostgreSQL: those of one entity
/// setting the same columns, `UPDATE … FROM (VALUES …)`). Optimistic locking still holds row
/// by row: a row another coordinator changed since it was read is found among hundreds and
/// resolved by the merge policy, alone, and a conflict leaves nothing of the save written.
@Suite struct ManyRowUpdateTests {
    static let stores = TestStore.all.filter { $0.kind != .inMemory }
    static let count = 600

    /// `count` clients saved through `coordinator`; their IDs in order.
    static func insertClients(through coordinator: PersistentStoreCoordinator) async throws -> [ObjectID] {
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        return try await context.perform {
            let clients = (0..<count).map { n in
                let client = Client(context: context)
                client.name = "Client \(n)"
                return client
            }
            try context.save()
            return clients.map(\.objectID)
        }
    }

    /// Reads every client in a new context, sets every city, and (before saving) lets
    /// another coordinator rename client 557; then saves under `policy`.
    static func setCities(_ ids: [ObjectID], to city: String, policy: MergePolicy,
                          through coordinator: PersistentStoreCoordinator,
                          whileOther other: PersistentStoreCoordinator) async throws -> (any Error)? {
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        context.mergePolicy = policy
        try await context.perform {
            for id in ids { try context.existingObject(with: id, as: Client.self).city = city }
        }
        let elsewhere = ManagedObjectContext(.privateQueue, coordinator: other)
        try await elsewhere.perform {
            try elsewhere.existingObject(with: ids[557], as: Client.self).name = "Renamed elsewhere"
            try elsewhere.save()
        }
        return await context.perform { () -> (any Error)? in
            do { try context.save(); return nil } catch { return error }
        }
    }

    static func rows(_ ids: [ObjectID], through coordinator: PersistentStoreCoordinator) async throws -> [(name: String, city: String?)] {
        let reader = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        return try await reader.perform {
            try ids.map { id in
                let client = try reader.existingObject(with: id, as: Client.self)
                return (client.name, client.city)
            }
        }
    }

    @Test(arguments: stores)
    func aRowChangedElsewhereAmongHundredsIsTheOneConflictAndNothingLands(_ store: TestStore) async throws {
        let location = store.makeLocation()
        let (ours, theirs) = (try location.coordinator(), try location.coordinator())
        let ids = try await Self.insertClients(through: ours)
        let error = try await Self.setCities(ids, to: "Lyon", policy: .error, through: ours, whileOther: theirs)
        guard case SaveError.mergeConflict(let conflicts)? = error else {
            Issue.record("expected one merge conflict, got \(String(describing: error))")
            return
        }
        #expect(conflicts.map(\.objectID) == [ids[557]])
        let stored = try await Self.rows(ids, through: try location.coordinator())
        #expect(stored.allSatisfy { $0.city == nil }, "a save that failed wrote some rows")
        #expect(stored[557].name == "Renamed elsewhere")
    }

    @Test(arguments: stores)
    func underObjectTrumpTheRowChangedElsewhereKeepsTheirNameAndTakesOurCity(_ store: TestStore) async throws {
        let location = store.makeLocation()
        let (ours, theirs) = (try location.coordinator(), try location.coordinator())
        let ids = try await Self.insertClients(through: ours)
        let error = try await Self.setCities(ids, to: "Lyon", policy: .mergeByPropertyObjectTrump,
                                             through: ours, whileOther: theirs)
        #expect(error == nil, "\(String(describing: error))")
        let stored = try await Self.rows(ids, through: try location.coordinator())
        #expect(stored.allSatisfy { $0.city == "Lyon" })
        #expect(stored[557].name == "Renamed elsewhere")
        #expect(stored[556].name == "Client 556" && stored[558].name == "Client 558")
    }
}
