import Foundation
import ObjectGraphPostgreSQL
import Testing
import TestSupport
@testable import ObjectGraph

/// What only the PostgreSQL store does, or does not do yet: the store tests shared by every
/// store run on it too (``TestStore/all``).
@Suite(.enabled(if: TestStore.isPostgreSQLAvailable, "PostgreSQL is not installed: see PostgreSQLAvailabilityTests"))
struct PostgreSQLStoreTests {
    @Test func aCommitOfAnotherStoreOnTheDatabaseChangesTheSignalAndReachesRemoteChanges() async throws {
        let location = TestStore.postgreSQL.makeLocation()
        let listener = try location.coordinator(recordsHistory: true, postsRemoteChangeNotifications: true)
        let writer = try location.coordinator(recordsHistory: true)
        let signal = try listener.storeChangeSignal()
        let before = signal.current
        let changes = listener.remoteChanges   // subscribed now, before the commit
        let announced = Task {
            for await change in changes { return change.transactions.count }
            return 0
        }
        let context = ManagedObjectContext(.privateQueue, coordinator: writer)
        try await context.perform {
            Client(context: context).name = "From the other server"
            try context.save()
        }
        // Waits count naps as well as time (at least 200 naps and 1 s): under TSan the test
        // process's cooperative threads are held elsewhere for up to a minute at a time, and a
        // wait by time alone ran out without a single look.
        let deadline = ContinuousClock.now + .seconds(1)
        var naps = 0
        while signal.current == before && (naps < 200 || ContinuousClock.now < deadline) {
            try await Task.sleep(for: .milliseconds(5))
            naps += 1
        }
        #expect(signal.current != before)
        let count = await withTaskGroup(of: Int?.self) { group in
            group.addTask { await announced.value }
            group.addTask {
                let deadline = ContinuousClock.now + .seconds(1)
                var naps = 0
                while naps < 100 || ContinuousClock.now < deadline {
                    try? await Task.sleep(for: .milliseconds(10))
                    naps += 1
                }
                return nil
            }
            defer { group.cancelAll(); announced.cancel() }
            return await group.next() ?? nil
        }
        #expect(count == 1)
    }

    @Test func aStringHoldingNULIsRefusedNotCut() async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try TestStore.postgreSQL.coordinator())
        let error = await context.perform { () -> SaveError? in
            let client = Client(context: context)
            client.name = "Acme\u{0}Ltd"
            do { try context.save(); return nil } catch let error as SaveError { return error } catch { return nil }
        }
        guard case .storeFailure(.unsupported(let message))? = error else {
            Issue.record("expected the store to refuse the value, got \(String(describing: error))")
            return
        }
        #expect(message.contains("U+0000"))
    }

    @Test func aBatchUpdateOfAnotherServerReachesThisOnesContextsAndDropsItsCachedRow() async throws {
        let location = TestStore.postgreSQL.makeLocation()
        let reader = try RemoteRowCacheTests.Reader(location)
        defer { try? reader.consumer.stop() }
        let other = try location.coordinator(recordsHistory: true)
        let id = try await RemoteRowCacheTests.insertClient(named: "Before", through: other)
        reader.consumer.start()
        #expect(try await RemoteRowCacheTests.eventually("Before") { try await reader.nameInMain(of: id) } == "Before")
        #expect(reader.coordinator.rowCache.snapshot(for: id)?.version == 1)
        let changes = reader.coordinator.remoteChanges   // subscribed now, before the batch
        let announced = Task { () -> Set<ObjectID> in
            for await change in changes {
                let ids = Set(change.transactions.flatMap(\.changes).map(\.objectID))
                if ids.contains(id) { return ids }
            }
            return []
        }

        var renamed = PropertyValues<Client>()
        renamed.set(\.name, to: "After")
        let result = try other.execute(BatchUpdateRequest(predicate: #Predicate<Client> { $0.name == "Before" }, set: renamed),
                                       author: "batch")
        #expect(result.objectIDs == [id])

        let seen = await withTaskGroup(of: Set<ObjectID>?.self) { group in
            group.addTask { await announced.value }
            group.addTask { try? await Task.sleep(for: .seconds(2)); return nil }
            defer { group.cancelAll(); announced.cancel() }
            return await group.next() ?? nil
        }
        #expect(seen == [id])
        // Announced means dropped: the row at version 1 is never served again.
        #expect(reader.coordinator.rowCache.snapshot(for: id).map { $0.version > 1 } ?? true)
        #expect(try await RemoteRowCacheTests.eventually("After") { try await reader.nameInMain(of: id) } == "After")
        #expect(try await reader.nameInNewChild(of: id) == "After")
    }

    @Test func aBatchInsertTheServerAbortsForADeadlockRunsAgainWithTheSameRowsOnce() async throws {
        let location = TestStore.postgreSQL.makeLocation()
        let coordinator = try location.coordinator(recordsHistory: true)
        let start = try coordinator.currentHistoryToken()
        try PostgreSQLContentionTests.abortInserts(in: location, with: "40P01", times: 2)
        let rows = ["Ada", "Grace", "Edsger"].map { name in
            var row = PropertyValues<Client>()
            row.set(\.name, to: name)
            return row
        }

        let result = try coordinator.execute(BatchInsertRequest(rows: rows))
        #expect(result.count == 3)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let stored = try await context.perform {
            try context.fetch(FetchRequest<Client>(sortBy: [SortDescriptor(\.name)])).map { ($0.objectID, $0.name) }
        }
        #expect(stored.map(\.1) == ["Ada", "Edsger", "Grace"])
        #expect(Set(stored.map(\.0)) == Set(result.objectIDs))
        let transactions = try coordinator.history(after: start)
        #expect(transactions.count == 1)
        #expect(Set(transactions.flatMap(\.changes).map(\.objectID)) == Set(result.objectIDs))
    }

    @Test func whileTheServerIsDownSavesFailTypedAndAfterItsRestartTheyGoThrough() async throws {
        // A server of this test's own: the shared one serves the other tests meanwhile. Its
        // initdb, stop and start block: they run on threads of their own, so this test holds
        // none of the two cooperative threads every other test needs meanwhile.
        let server = try await PostgreSQLServer.started()
        defer { Thread { server.stop() }.start() }
        let coordinator = PersistentStoreCoordinator(model: TestStack.model)
        try coordinator.addPostgreSQLStore(.init(url: server.url(), recordsHistory: true))
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            Client(context: context).name = "Before"
            try context.save()
        }

        await server.shutDownAndWait()
        let whileDown = await context.perform { () -> SaveError? in
            Client(context: context).name = "During"
            do { try context.save(); return nil } catch let error as SaveError { return error } catch { return nil }
        }
        guard case .storeFailure(.unreachable)? = whileDown else {
            Issue.record("expected StoreError.unreachable while the server is down, got \(String(describing: whileDown))")
            return
        }

        try await server.startAgainAndWait()
        // The failed save kept its changes: saving again writes them. A connection that failed
        // to reconnect waits out its backoff (at most 2 s) before it tries again, answering
        // `unreachable` meanwhile: a caller retries, as the dashboard's 503 Retry-After asks.
        let deadline = ContinuousClock.now + .seconds(5)
        var saved = false
        while !saved && ContinuousClock.now < deadline {
            let error = await context.perform { () -> SaveError? in
                do { try context.save(); return nil } catch let error as SaveError { return error } catch { return nil }
            }
            guard let error else { saved = true; break }
            guard case .storeFailure(.unreachable) = error else {
                Issue.record("after the restart a save failed with \(error)")
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(saved, "no save went through within 5 s of the restart")
        let names = try await context.perform {
            try context.fetch(FetchRequest<Client>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        }
        #expect(names == ["Before", "During"])
    }

    @Test func aDateKeepsItsMicroseconds() async throws {
        let location = TestStore.postgreSQL.makeLocation()
        let coordinator = try location.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let exact = Date(timeIntervalSince1970: 1_712_345_678.123456)
        let id = try await context.perform {
            let client = Client(context: context)
            client.name = "Acme"
            client.createdAt = exact
            try context.save()
            return client.objectID
        }
        let reader = ManagedObjectContext(.privateQueue, coordinator: try location.freshReader(of: coordinator))
        let read = try await reader.perform { try reader.existingObject(with: id, as: Client.self).createdAt }
        #expect(abs(read.timeIntervalSince(exact)) < 0.000_001)
    }
}
