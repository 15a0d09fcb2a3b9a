import Foundation
import Testing
@testable import ObjectGraph
import ObjectGraphFixtureModel

/// Persistent history: what is recorded, reading after a token, tokens across restarts,
/// purging and its guarantees.
@Suite struct HistoryTests {
    static func coordinator(_ location: StoreLocation, history: Bool = true) throws -> PersistentStoreCoordinator {
        try location.coordinator(model: SharedModel.model, recordsHistory: history)
    }

    static func context(_ coordinator: PersistentStoreCoordinator, author: String? = nil, name: String? = nil) -> ManagedObjectContext {
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: name)
        context.transactionAuthor = author
        return context
    }

    @Test(arguments: TestStore.all) func eachSaveRecordsATransactionWithAuthorContextProcessAndChanges(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try Self.coordinator(location)
        let start = try coordinator.currentHistoryToken()
        let context = Self.context(coordinator, author: "tests", name: "editor")

        let ids = try await context.perform {
            let a = Account(context: context); a.name = "Ada"; a.email = "ada@example.com"
            let b = Account(context: context); b.name = "Bob"
            try context.save()
            a.balance = 10
            a.name = "Ada L."
            try context.save()
            context.delete(b)
            try context.save()
            return (a.objectID, b.objectID)
        }

        let transactions = try coordinator.history(after: start)
        #expect(transactions.count == 3)
        #expect(transactions.map(\.number) == transactions.map(\.number).sorted())
        for t in transactions {
            #expect(t.author == "tests")
            #expect(t.contextName == "editor")
            #expect(t.processID == getpid())
            #expect(t.token.storeIdentifier == coordinator.storeIdentifier)
        }
        #expect(Set(transactions[0].changes.map(\.objectID)) == [ids.0, ids.1])
        #expect(transactions[0].changes.allSatisfy { $0.kind == .insert })
        #expect(transactions[1].changes.map(\.kind) == [.update])
        #expect(transactions[1].changes.first?.updatedProperties == ["balance", "name"])
        #expect(transactions[2].changes.map(\.kind) == [.delete])
        #expect(transactions[2].changes.first?.objectID == ids.1)
        #expect(try coordinator.currentHistoryToken() == transactions[2].token)
        // After the last token there is nothing.
        #expect(try coordinator.history(after: transactions[2].token).isEmpty)
        #expect(try coordinator.history(after: transactions[0].token).count == 2)
    }

    @Test(arguments: TestStore.all) func aDeleteKeepsTheTombstoneOfAttributesPreservedInHistory(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try Self.coordinator(location)
        let context = Self.context(coordinator)
        let start = try coordinator.currentHistoryToken()
        try await context.perform {
            let a = Account(context: context); a.name = "Gone"; a.email = "gone@example.com"; a.balance = 5
            try context.save()
            context.delete(a)
            try context.save()
        }
        let delete = try #require(try coordinator.history(after: start).last?.changes.first)
        #expect(delete.kind == .delete)
        #expect(delete.tombstone?.value("email", as: String.self) == "gone@example.com")
        // Only the declared attributes are kept.
        #expect(delete.tombstone?.attributeNames == ["email"])
    }

    @Test(arguments: TestStore.shared) func aTokenSurvivesEncodingAndARestartOfTheCoordinator(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        var coordinator: PersistentStoreCoordinator? = try Self.coordinator(location)
        let context = Self.context(try #require(coordinator))
        try await context.perform { let a = Account(context: context); a.name = "One"; try context.save() }
        let saved = try JSONEncoder().encode(try #require(coordinator).currentHistoryToken())
        try await context.perform { let a = Account(context: context); a.name = "Two"; try context.save() }
        coordinator = nil

        let reopened = try Self.coordinator(location)
        let token = try JSONDecoder().decode(PersistentHistoryToken.self, from: saved)
        let after = try reopened.history(after: token)
        #expect(after.count == 1)
        #expect(after.first?.changes.count == 1)
        #expect(after.first?.changes.first?.kind == .insert)
    }

    @Test(arguments: TestStore.all) func aPurgedTokenFailsWithAnErrorThatSaysSo(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try Self.coordinator(location)
        let context = Self.context(coordinator)
        let beginning = try coordinator.currentHistoryToken()
        var tokens: [PersistentHistoryToken] = []
        for n in 0..<3 {
            try await context.perform { let a = Account(context: context); a.name = "A\(n)"; try context.save() }
            tokens.append(try coordinator.currentHistoryToken())
        }
        let purged = try coordinator.purgeHistory(before: tokens[1])
        #expect(purged == tokens[1])

        #expect(throws: PersistentHistoryError.tokenExpired(beginning, purgedThrough: tokens[1].transactionNumber)) {
            try coordinator.history(after: beginning)
        }
        #expect(throws: PersistentHistoryError.self) { try coordinator.history(after: tokens[0]) }
        do {
            _ = try coordinator.history(after: tokens[0])
        } catch let error as PersistentHistoryError {
            #expect(error.code == 134301)
            #expect(error.description.contains("expired"))
        }
        // Purging what is already purged does nothing.
        #expect(try coordinator.purgeHistory(before: tokens[0]) == tokens[1])
        // The purge point itself and later tokens still work; numbers are not reused.
        #expect(try coordinator.history(after: tokens[1]).count == 1)
        #expect(try coordinator.history(after: nil).map(\.number) == [tokens[2].transactionNumber])
        try await context.perform { let a = Account(context: context); a.name = "Later"; try context.save() }
        #expect(try coordinator.currentHistoryToken().transactionNumber == tokens[2].transactionNumber + 1)
    }

    @Test(arguments: TestStore.shared) func purgingNeverDropsWhatARegisteredConsumerHasNotRead(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try Self.coordinator(location)
        let other = try Self.coordinator(location)
        let reader = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let consumer = try PersistentHistoryConsumer(name: "slow-reader", coordinator: coordinator, contexts: [reader])
        let registeredAt = consumer.cursor

        let writer = Self.context(other)
        for n in 0..<3 {
            try await writer.perform { let a = Account(context: writer); a.name = "W\(n)"; try writer.save() }
        }
        // Purging everything stops at the consumer's cursor.
        let through = try other.purgeHistory(before: try other.currentHistoryToken())
        #expect(through == registeredAt)
        let merged = try await consumer.catchUp()
        #expect(merged.count == 3)
        try consumer.stop()   // stores the cursor
        #expect(try other.purgeHistory(before: try other.currentHistoryToken()) == consumer.cursor)

        // Once unregistered, nothing holds purging back.
        try consumer.unregister()
        try await writer.perform { let a = Account(context: writer); a.name = "Last"; try writer.save() }
        let latest = try other.currentHistoryToken()
        #expect(try other.purgeHistory(before: latest) == latest)
    }

    @Test(arguments: TestStore.shared) func aConsumerResumesFromItsStoredCursorAfterARestart(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let writer = Self.context(try Self.coordinator(location), author: "other")
        do {
            let coordinator = try Self.coordinator(location)
            let consumer = try PersistentHistoryConsumer(name: "app", coordinator: coordinator,
                                                         contexts: [ManagedObjectContext(.privateQueue, coordinator: coordinator)])
            try await writer.perform { let a = Account(context: writer); a.name = "Seen"; try writer.save() }
            #expect(try await consumer.catchUp().count == 1)
            try consumer.stop()
        }
        // While the app is not running, another process writes twice.
        for name in ["Missed 1", "Missed 2"] {
            try await writer.perform { let a = Account(context: writer); a.name = name; try writer.save() }
        }
        let restarted = try Self.coordinator(location)
        let context = ManagedObjectContext(.privateQueue, coordinator: restarted)
        let consumer = try PersistentHistoryConsumer(name: "app", coordinator: restarted, contexts: [context])
        let caughtUp = try await consumer.catchUp()
        #expect(caughtUp.count == 2)
        #expect(caughtUp.allSatisfy { $0.author == "other" })
        #expect(try await consumer.catchUp().isEmpty)
    }

    @Test(arguments: TestStore.shared) func aFileThatRecordsHistoryKeepsRecordingForEveryCoordinator(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let first = try Self.coordinator(location, history: true)
        let start = try first.currentHistoryToken()
        // A second coordinator that does not ask for history still records it.
        let second = try Self.coordinator(location, history: false)
        #expect(second.recordsHistory)
        let context = Self.context(second, author: "legacy")
        try await context.perform { let a = Account(context: context); a.name = "Seen"; try context.save() }
        #expect(try first.history(after: start).map(\.author) == ["legacy"])
    }

    @Test(arguments: TestStore.all) func aStoreWithoutHistoryAndForeignTokensAreRefusedClearly(_ store: TestStore) throws {
        let location = store.makeLocation(), other = store.makeLocation()
        defer { location.cleanUp(); other.cleanUp() }
        let plain = try Self.coordinator(location, history: false)
        let path = try #require(plain.storePath)
        #expect(throws: PersistentHistoryError.notRecorded(path: path)) { try plain.currentHistoryToken() }

        let one = try Self.coordinator(other)
        let foreign = PersistentHistoryToken(storeIdentifier: UUID(), transactionNumber: 0)
        #expect(throws: PersistentHistoryError.self) { try one.history(after: foreign) }
        let future = PersistentHistoryToken(storeIdentifier: try #require(one.storeIdentifier), transactionNumber: 99)
        #expect(throws: PersistentHistoryError.tokenInTheFuture(future, last: 0)) { try one.history(after: future) }
    }

    @Test func remoteChangeNotificationsWithoutHistoryAreAConfigurationError() throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        var description = PersistentStoreDescription.sqlite(at: url)
        description.postsRemoteChangeNotifications = true
        let coordinator = PersistentStoreCoordinator(model: SharedModel.model)
        #expect(throws: StoreError.self) { try coordinator.addPersistentStore(description) }
    }
}
