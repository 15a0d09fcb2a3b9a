import Foundation
import CSQLite
import Synchronization
import Testing
@testable import ObjectGraph
import ObjectGraphFixtureModel

/// Two stacks on one SQLite file, in two real processes: this test process (A) and
/// `objectgraph-fixture remote-writer` (B). Remote changes arrive through persistent
/// history; conflicts are reported, never silent; a killed writer leaves nothing behind.
@Suite(.serialized) struct MultiProcessTests {
    /// A's stack: writer and main, with a history consumer merging remote transactions.
    final class StackA: Sendable {
        let coordinator: PersistentStoreCoordinator
        let writer: ManagedObjectContext
        let main: ManagedObjectContext
        let consumer: PersistentHistoryConsumer

        init(url: URL) throws {
            coordinator = PersistentStoreCoordinator(model: SharedModel.model)
            try coordinator.addPersistentStore(SharedModel.description(at: url.path))
            writer = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "writer")
            main = ManagedObjectContext(.mainQueue, parent: writer, name: "main")
            consumer = try PersistentHistoryConsumer(name: "tests-A", coordinator: coordinator, contexts: [writer, main])
            consumer.start()
        }

        func account(named name: String) async throws -> (id: ObjectID, balance: Int)? {
            let main = self.main
            return try await main.perform {
                try main.fetch(FetchRequest<Account>(predicate: #Predicate { $0.name == name })).first
                    .map { ($0.objectID, $0.balance) }
            }
        }
    }

    /// Waits (at most `seconds`) for a remote change set on `context` satisfying `matches`.
    static func remoteChange(on stream: AsyncStream<ChangeSet>, within seconds: Double,
                             where matches: @escaping @Sendable (ChangeSet) -> Bool) async -> ChangeSet? {
        await withTaskGroup(of: ChangeSet?.self) { group in
            group.addTask {
                for await change in stream where change.origin == .remote && matches(change) { return change }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    @Test func insertsUpdatesAndDeletesOfAnotherProcessReachTheMainContextWithoutARefresh() async throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let a = try StackA(url: url)
        let b = try await RemoteWriterProcess(storeAt: url)
        defer { Task { await b.quit() } }

        // Insert in B: A's main context hears of it and fetches it.
        let inserts = a.main.changes
        let reply = try await b.send("insert Ada ada@example.com")
        #expect(reply.hasPrefix("inserted"))
        let insertSeen = await Self.remoteChange(on: inserts, within: 90) { !$0.inserted.isEmpty }
        #expect(insertSeen != nil)
        let ada = try #require(try await a.account(named: "Ada"))
        // B's URI for the object names the same object here.
        let uri = try #require(reply.split(separator: " ").last.flatMap { URL(string: String($0)) })
        #expect(try a.coordinator.managedObjectID(forURIRepresentation: uri) == ada.id)

        // A shows the account (a registered object), B updates it: the object itself changes.
        let holder = ObjectBox()
        try await a.main.perform {
            holder.object = try a.main.existingObject(with: ada.id, as: Account.self)
            _ = (holder.object as? Account)?.balance
        }
        let updates = a.main.changes
        #expect(try await b.send("update Ada 42") == "saved")
        let updateSeen = await Self.remoteChange(on: updates, within: 90) { $0.updated.contains(ada.id) }
        #expect(updateSeen != nil)
        let balance = await a.main.perform { (holder.object as? Account)?.balance }
        #expect(balance == 42)

        // B deletes it: A's object reports it, and fetches no longer find it.
        let deletes = a.main.changes
        #expect(try await b.send("delete Ada") == "deleted")
        let deleteSeen = await Self.remoteChange(on: deletes, within: 90) { $0.deleted.contains(ada.id) }
        #expect(deleteSeen != nil)
        let gone = await a.main.perform { holder.object?.isDeletedElsewhere ?? false }
        #expect(gone)
        #expect(try await a.account(named: "Ada") == nil)
        await a.main.perform { holder.object = nil }
        #expect(a.consumer.mergedTransactionCount == 3)
    }

    @Test func bothProcessesEditingTheSameRowEndInAReportedConflict() async throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let a = try StackA(url: url)
        let b = try await RemoteWriterProcess(storeAt: url)
        defer { Task { await b.quit() } }
        let inserted = a.main.changes
        #expect(try await b.send("insert Shared").hasPrefix("inserted"))
        _ = await Self.remoteChange(on: inserted, within: 90) { !$0.inserted.isEmpty }
        let shared = try #require(try await a.account(named: "Shared"))

        // A edits the balance in main (not saved yet); B saves another balance meanwhile.
        let holder = ObjectBox()
        try await a.main.perform {
            let account = try a.main.existingObject(with: shared.id, as: Account.self)
            account.balance = 100
            holder.object = account
        }
        let merged = a.main.changes
        #expect(try await b.send("update Shared 7") == "saved")
        _ = await Self.remoteChange(on: merged, within: 90) { $0.updated.contains(shared.id) }

        // A's edit is still there, on top; saving it up the chain is a reported conflict.
        let pending = await a.main.perform { (holder.object as? Account)?.balance }
        #expect(pending == 100)
        let outcome: String = await a.main.perform {
            do {
                try a.main.save()
                try a.writer.performAndWait { try a.writer.save() }
                return "saved"
            } catch let error as SaveError {
                if case .mergeConflict(let conflicts) = error {
                    return "conflict " + conflicts.flatMap(\.properties).map(\.property).joined(separator: ",")
                }
                return "error \(error)"
            } catch {
                return "error \(error)"
            }
        }
        #expect(outcome == "conflict balance")
        // B's value is what the store holds.
        let stored = try await Self.storedBalance(shared.id, at: url)
        #expect(stored == 7)

        // The other way round: B edits from a stale read, A saves first; B's save conflicts.
        let fresh = try TestStackShared.writer(at: url)
        #expect(try await b.send("edit Shared 1") == "edited")
        try await fresh.perform {
            let account = try fresh.existingObject(with: shared.id, as: Account.self)
            account.balance = 2
            try fresh.save()
        }
        let reply = try await b.send("save")
        #expect(reply.hasPrefix("conflict"), "B said: \(reply)")
        #expect(try await Self.storedBalance(shared.id, at: url) == 2)
        await a.main.perform { holder.object = nil; a.main.rollback() }
    }

    @Test func killingTheOtherProcessMidTransactionLeavesTheStoreConsistentAndUsable() async throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let a = try StackA(url: url)
        let before = try a.coordinator.currentHistoryToken()

        // B starts a batch insert and is killed with the transaction open.
        let dying = try await RemoteWriterProcess(storeAt: url, command: "die-mid-transaction")
        await dying.kill()

        // Nothing of B's is in the data or the history, and A writes and reads as before.
        let context = ManagedObjectContext(.privateQueue, coordinator: a.coordinator)
        let (doomed, saved) = try await context.perform {
            let doomed = try context.count(for: FetchRequest<Account>())
            let account = Account(context: context)
            account.name = "After"
            try context.save()
            return (doomed, try context.count(for: FetchRequest<Account>()))
        }
        #expect(doomed == 0)
        #expect(saved == 1)
        let history = try a.coordinator.history(after: before)
        #expect(history.count == 1)
        #expect(history.allSatisfy { $0.author != "dying" })
        #expect(try Self.integrityCheck(at: url) == "ok")
    }

    @Test func aWriterWaitsForAnotherProcesssWriteLockThenFailsClearlyWhileReadersRead() async throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = PersistentStoreCoordinator(model: SharedModel.model)
        var description = SharedModel.description(at: url.path)
        description.busyTimeout = 0.3
        try coordinator.addPersistentStore(description)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform { let a = Account(context: context); a.name = "Before"; try context.save() }

        let holder = try await FixtureProcess.start(["hold-write-lock", url.path, FixtureProcess.holdLimit], readyLine: "locked")
        let started = ContinuousClock.now
        let (readWhileLocked, saveError) = await context.perform { () -> (Int, StoreError?) in
            let read = (try? context.count(for: FetchRequest<Account>())) ?? -1
            let account = Account(context: context)
            account.name = "Blocked"
            do {
                try context.save()
                return (read, nil)
            } catch SaveError.storeFailure(let error) {
                context.rollback()
                return (read, error)
            } catch {
                context.rollback()
                return (read, nil)
            }
        }
        let waited = ContinuousClock.now - started
        await holder.finish()

        #expect(readWhileLocked == 1)
        #expect(saveError == .busy(path: url.path, timeout: 0.3))
        #expect(waited >= .milliseconds(300))
        // Once the other process lets go, saving works.
        let after = try await context.perform {
            let account = Account(context: context); account.name = "After"; try context.save()
            return try context.count(for: FetchRequest<Account>())
        }
        #expect(after == 2)
    }

    @Test func aRemoteChangeIsAnnouncedToAnotherCoordinatorButNotToItsWriter() async throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let listener = PersistentStoreCoordinator(model: SharedModel.model)
        try listener.addPersistentStore(SharedModel.description(at: url.path))
        let writer = PersistentStoreCoordinator(model: SharedModel.model)
        try writer.addPersistentStore(SharedModel.description(at: url.path))
        let heard = listener.remoteChanges, echoed = writer.remoteChanges

        let context = ManagedObjectContext(.privateQueue, coordinator: writer)
        context.transactionAuthor = "same-process"
        let committed = ContinuousClock.now
        try await context.perform { let a = Account(context: context); a.name = "X"; try context.save() }

        var iterator = heard.makeAsyncIterator()
        let change = await iterator.next()
        let latency = ContinuousClock.now - committed
        #expect(change?.transactions.map(\.author) == ["same-process"])
        #expect(change?.historyToken == (try writer.currentHistoryToken()))
        #expect(latency < .milliseconds(500))
        // The writer's own coordinator announces nothing.
        let own = await Self.first(of: echoed, within: 0.2)
        #expect(own == nil)
    }

    // MARK: Helpers

    static func first(of stream: AsyncStream<RemoteChange>, within seconds: Double) async -> RemoteChange? {
        await withTaskGroup(of: RemoteChange?.self) { group in
            group.addTask { for await change in stream { return change }; return nil }
            group.addTask { try? await Task.sleep(for: .seconds(seconds)); return nil }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    static func storedBalance(_ id: ObjectID, at url: URL) async throws -> Int {
        let context = try TestStackShared.writer(at: url)
        return try await context.perform { try context.existingObject(with: id, as: Account.self).balance }
    }

    static func integrityCheck(at url: URL) throws -> String {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { return "cannot open" }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, nil) == SQLITE_OK else { return "cannot prepare" }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return "no answer" }
        return String(cString: text)
    }
}

/// A fresh root context on its own coordinator (an empty row cache) over the shared model.
enum TestStackShared {
    static func writer(at url: URL) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(model: SharedModel.model)
        try coordinator.addPersistentStore(SharedModel.description(at: url.path))
        return ManagedObjectContext(.privateQueue, coordinator: coordinator)
    }
}

/// Keeps an object alive between blocks of its context (only touched there).
final class ObjectBox: @unchecked Sendable {
    var object: ManagedObject?
}
