import Foundation
import Testing
@testable import ObjectGraph
import ObjectGraphFixtureModel

/// Where a history consumer keeps its place: written as it merges (a process that dies
/// without `stop()` does not merge everything again at its next start), and never again
/// once it is unregistered (or purging would be held back for ever).
@Suite struct HistoryCursorTests {
    private struct Fixture {
        let location: StoreLocation
        let other: PersistentStoreCoordinator
        let writer: ManagedObjectContext

        init(_ store: TestStore) throws {
            location = store.makeLocation()
            other = try HistoryTests.coordinator(location)
            writer = HistoryTests.context(other, author: "other")
        }

        func commit(_ name: String) async throws {
            try await writer.perform { let a = Account(context: writer); a.name = name; try writer.save() }
        }

        func consumer(interval: Duration = .zero) throws -> PersistentHistoryConsumer {
            let coordinator = try HistoryTests.coordinator(location)
            return try PersistentHistoryConsumer(name: "app", coordinator: coordinator,
                                                 contexts: [ManagedObjectContext(.privateQueue, coordinator: coordinator)],
                                                 cursorWriteInterval: interval)
        }

        /// How far purging everything gets: it stops at the lowest stored cursor.
        func purgeAll() throws -> PersistentHistoryToken {
            try other.purgeHistory(before: try other.currentHistoryToken())
        }
    }

    @Test(arguments: TestStore.shared) func theCursorIsWrittenAsTheConsumerMergesNotOnlyAtStop(_ store: TestStore) async throws {
        let fixture = try Fixture(store)
        defer { fixture.location.cleanUp() }
        do {
            let consumer = try fixture.consumer()
            for n in 0..<3 { try await fixture.commit("Merged \(n)") }
            #expect(try await consumer.catchUp().count == 3)
            // the stored cursor has moved (purging reaches it) though stop() was never called
            #expect(try fixture.purgeAll() == consumer.cursor)
        }   // the process "dies" here: no stop()
        try await fixture.commit("After the crash")
        let restarted = try fixture.consumer()
        let merged = try await restarted.catchUp()
        #expect(merged.count == 1)
        #expect(merged.first?.changes.count == 1)
    }

    @Test(arguments: TestStore.shared) func aThrottledCursorIsWrittenAtStop(_ store: TestStore) async throws {
        let fixture = try Fixture(store)
        defer { fixture.location.cleanUp() }
        let consumer = try fixture.consumer(interval: .seconds(3600))
        let registeredAt = consumer.cursor
        try await fixture.commit("One")
        #expect(try await consumer.catchUp().count == 1)
        #expect(try fixture.purgeAll() == registeredAt)      // not written yet: within the interval
        try consumer.stop()
        #expect(try fixture.purgeAll() == consumer.cursor)
    }

    @Test(arguments: TestStore.shared) func anUnregisteredConsumerNeverWritesItsCursorAgain(_ store: TestStore) async throws {
        let fixture = try Fixture(store)
        defer { fixture.location.cleanUp() }
        // (a cursor throttled for an hour: merged but not yet written when it is unregistered)
        let consumer = try fixture.consumer(interval: .seconds(3600))
        try await fixture.commit("Before")
        #expect(try await consumer.catchUp().count == 1)
        try consumer.unregister()
        try await fixture.commit("After")
        // catching up now would merge over history that may be gone: it says so instead
        await #expect(throws: PersistentHistoryError.consumerUnregistered("app")) { try await consumer.catchUp() }
        try consumer.stop()
        // nothing holds purging back
        let latest = try fixture.other.currentHistoryToken()
        #expect(try fixture.purgeAll() == latest)
    }

    @Test(arguments: TestStore.shared) func aRunningConsumerUnregisteredWhileCommitsArriveLeavesNoCursor(_ store: TestStore) async throws {
        let fixture = try Fixture(store)
        defer { fixture.location.cleanUp() }
        let coordinator = try HistoryTests.coordinator(fixture.location)
        let consumer = try PersistentHistoryConsumer(name: "app", coordinator: coordinator,
                                                     contexts: [ManagedObjectContext(.privateQueue, coordinator: coordinator)],
                                                     cursorWriteInterval: .zero)
        consumer.start()
        for n in 0..<20 {
            try await fixture.commit("Racing \(n)")
            if n == 10 { try consumer.unregister() }
            if n % 5 == 0 { _ = try? await consumer.catchUp() }   // unregistered: refused, by design
        }
        try consumer.stop()
        let latest = try fixture.other.currentHistoryToken()
        #expect(try fixture.purgeAll() == latest)
    }
}
