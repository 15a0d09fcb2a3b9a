import Foundation
import Testing
@testable import ObjectGraph

/// A row another coordinator changed must not be served from this coordinator's row cache
/// once the change was announced: on every store two coordinators can share (a SQLite file,
/// a PostgreSQL database), whichever context reads it next.
@Suite struct RemoteRowCacheTests {
    static let sharedStores = TestStore.all.filter { $0.kind != .inMemory }

    /// The dashboard's shape: a writer at the root, main under it, a consumer merging the
    /// other side's commits into both.
    final class Reader: Sendable {
        let coordinator: PersistentStoreCoordinator
        let writer: ManagedObjectContext
        let main: ManagedObjectContext
        let consumer: PersistentHistoryConsumer

        init(_ location: StoreLocation) throws {
            coordinator = try location.coordinator(recordsHistory: true, postsRemoteChangeNotifications: true)
            writer = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "writer")
            main = ManagedObjectContext(.privateQueue, parent: writer, name: "main")
            consumer = try PersistentHistoryConsumer(name: "reader", coordinator: coordinator, contexts: [writer, main])
        }

        /// The name as a new child of main reads it (a page read).
        func nameInNewChild(of id: ObjectID) async throws -> String {
            let child = ManagedObjectContext(.privateQueue, parent: main, name: "page read")
            return try await child.perform { try child.existingObject(with: id, as: Client.self).name }
        }

        func nameInMain(of id: ObjectID) async throws -> String {
            let main = self.main
            return try await main.perform { try main.existingObject(with: id, as: Client.self).name }
        }
    }

    static func insertClient(named name: String, through coordinator: PersistentStoreCoordinator) async throws -> ObjectID {
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        return try await context.perform {
            let client = Client(context: context)
            client.name = name
            try context.save()
            return client.objectID
        }
    }

    static func rename(_ id: ObjectID, to name: String, through coordinator: PersistentStoreCoordinator) async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            try context.existingObject(with: id, as: Client.self).name = name
            try context.save()
        }
    }

    /// Polls `read` until it answers `expected`; the last answer. It gives up after 300 reads
    /// and 2 s, both: a stale row would be served for good, and counting reads as well as
    /// time keeps a test process whose threads are all busy for a while (clean-clone runs
    /// saw every test held for 14 s at the start) from giving up after a read or two.
    static func eventually(_ expected: String, _ read: () async throws -> String) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(2)
        var last = try await read()
        var reads = 1
        while last != expected && (reads < 300 || ContinuousClock.now < deadline) {
            try await Task.sleep(for: .milliseconds(10))
            last = try await read()
            reads += 1
        }
        return last
    }

    @Test(arguments: sharedStores)
    func aRowHeldByMainThatAnotherCoordinatorRenamedReadsNewInANewChild(_ store: TestStore) async throws {
        let location = store.makeLocation()
        let reader = try Reader(location)
        defer { try? reader.consumer.stop() }
        let other = try location.coordinator(recordsHistory: true)
        let id = try await Self.insertClient(named: "Before", through: other)
        reader.consumer.start()
        #expect(try await Self.eventually("Before") { try await reader.nameInMain(of: id) } == "Before")
        #expect(try await reader.nameInNewChild(of: id) == "Before")

        try await Self.rename(id, to: "After", through: other)
        #expect(try await Self.eventually("After") { try await reader.nameInMain(of: id) } == "After")
        #expect(try await reader.nameInNewChild(of: id) == "After")
    }

    @Test(arguments: sharedStores)
    func aRowOnlyAChildReadThatAnotherCoordinatorRenamedReadsNewInTheNextChild(_ store: TestStore) async throws {
        let location = store.makeLocation()
        let reader = try Reader(location)
        defer { try? reader.consumer.stop() }
        let other = try location.coordinator(recordsHistory: true)
        let id = try await Self.insertClient(named: "Before", through: other)
        reader.consumer.start()
        // Held by a long-lived child, as an open form holds it: the row stays cached.
        let holder = ManagedObjectContext(.privateQueue, parent: reader.main, name: "form")
        let held = try await holder.perform { try holder.existingObject(with: id, as: Client.self).name }
        #expect(held == "Before")

        try await Self.rename(id, to: "After", through: other)
        #expect(try await Self.eventually("After") { try await reader.nameInNewChild(of: id) } == "After")
        _ = holder
    }
}
