import Foundation
import Testing
@testable import ObjectGraph

/// The history of one object: the transactions that touched it, in either order, in pages,
/// read along an index so it stays fast however long the whole history is.
@Suite struct ObjectHistoryTests {
    /// Inserts a bill, changes its amount `updates` times (one save each, touching another
    /// bill every time too), then deletes it.
    static func billWithAHistory(updates: Int, in context: ManagedObjectContext) async throws -> (bill: ObjectID, other: ObjectID) {
        try await context.perform {
            let bill = Bill(context: context)
            bill.number = "B-1"
            let other = Bill(context: context)
            other.number = "B-2"
            try context.save()
            for n in 1...updates {
                bill.amount = Decimal(n)
                other.amount = Decimal(1000 + n)
                try context.save()
            }
            context.delete(bill)
            try context.save()
            return (bill.objectID, other.objectID)
        }
    }

    @Test(arguments: TestStore.all) func anObjectsHistoryListsTheTransactionsThatTouchedItNewestFirstWithItsChangesOnly(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try HistoryValuesStack.coordinator(location)
        let context = HistoryValuesStack.context(coordinator, author: "ada", name: "editor")
        let (bill, other) = try await Self.billWithAHistory(updates: 3, in: context)

        let history = try coordinator.history(of: bill)
        #expect(history.map { $0.changes.map(\.kind) } == [[.delete], [.update], [.update], [.update], [.insert]])
        #expect(history.map(\.number) == history.map(\.number).sorted(by: >))
        #expect(history.allSatisfy { $0.changes.allSatisfy { $0.objectID == bill } })
        #expect(history.allSatisfy { $0.author == "ada" && $0.contextName == "editor" && $0.processID == getpid() })
        #expect(history[1].changes.first?.values["amount"] == HistoryValueChange(old: .decimal(2), new: .decimal(3)))
        #expect(history[0].changes.first?.values["amount"]?.old == .decimal(3))

        let oldestFirst = try coordinator.history(of: bill, order: .oldestFirst)
        #expect(oldestFirst == Array(history.reversed()))
        // The other bill's history shares the update transactions but not the delete.
        #expect(try coordinator.history(of: other).map(\.number) == Array(history.dropFirst().map(\.number)))
    }

    @Test(arguments: TestStore.all) func pagesOfAnObjectsHistoryContinueWhereThePreviousPageEnded(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try HistoryValuesStack.coordinator(location)
        let (bill, _) = try await Self.billWithAHistory(updates: 23, in: HistoryValuesStack.context(coordinator))
        let all = try coordinator.history(of: bill).map(\.number)
        #expect(all.count == 25)

        for order in [HistoryOrder.newestFirst, .oldestFirst] {
            var pages: [[Int64]] = []
            var last: PersistentHistoryToken?
            repeat {
                let page = try coordinator.history(of: bill, order: order, limit: 10, startingAfter: last)
                pages.append(page.map(\.number))
                last = page.last?.token
            } while pages.last?.isEmpty == false
            #expect(pages.map(\.count) == [10, 10, 5, 0])
            #expect(pages.flatMap { $0 } == (order == .newestFirst ? all : all.reversed()))
        }
        #expect(try coordinator.history(of: bill, limit: 0).isEmpty)
    }

    @Test func anObjectsHistoryIsReadThroughTheObjectIndexNeverAScan() async throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try HistoryValuesStack.coordinator(at: url)
        let (bill, _) = try await Self.billWithAHistory(updates: 2, in: HistoryValuesStack.context(coordinator))
        // 200,000 more changes of 20,000 other bills, 10 per transaction, written in bulk.
        let file = try StoreFileSQL(url)
        try HistoryFiller.fill(file, transactions: 20_000, changesPerTransaction: 10, objects: 20_000)

        for order in [HistoryOrder.newestFirst, .oldestFirst] {
            for bounded in [false, true] {
                let plan = try file.rows("EXPLAIN QUERY PLAN " + SQLiteStore.objectHistorySQL(order: order, bounded: bounded),
                                         [.string("Bill"), .int(1)] + (bounded ? [.int(5)] : []))
                    .map { $0.last ?? "" }
                #expect(plan.contains { $0.contains("USING COVERING INDEX _og_history_change_object") || $0.contains("USING INDEX _og_history_change_object") },
                        "plan: \(plan)")
                #expect(plan.contains { $0.contains("USING INTEGER PRIMARY KEY") }, "plan: \(plan)")
                #expect(!plan.contains { $0.hasPrefix("SCAN") || $0.contains("TEMP B-TREE") }, "plan: \(plan)")
            }
        }
        let valuePlan = try file.rows("EXPLAIN QUERY PLAN SELECT change, property, type, destination, old, new FROM _og_history_value WHERE change = ?", [.int(1)])
            .map { $0.last ?? "" }
        #expect(valuePlan.allSatisfy { $0.hasPrefix("SEARCH") }, "plan: \(valuePlan)")
        // The bill's own history is still exactly its own among them.
        #expect(try coordinator.history(of: bill).map { $0.changes.map(\.kind) } == [[.delete], [.update], [.update], [.insert]])
        #expect(try coordinator.history(of: ObjectID(entityName: "Bill", key: .permanent(store: bill.storeIdentifier ?? UUID(), primaryKey: 1700)),
                                        limit: 3).count == 3)
    }

    @Test func aFileMadeBeforeValuesAndTheObjectIndexGetsThemWhenItOpens() async throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        var coordinator: PersistentStoreCoordinator? = try HistoryValuesStack.coordinator(at: url)
        _ = try await HistoryValuesTests.insertBill(HistoryValuesStack.context(try #require(coordinator)))
        coordinator = nil
        // As an earlier version left the file.
        let file = try StoreFileSQL(url)
        try file.execute("DROP INDEX _og_history_change_object; DROP TABLE _og_history_value")

        let reopened = try HistoryValuesStack.coordinator(at: url)
        #expect(try file.integer("SELECT COUNT(*) FROM sqlite_master WHERE name IN ('_og_history_change_object', '_og_history_value')") == 2)
        let (_, bill) = try await HistoryValuesTests.insertBill(HistoryValuesStack.context(reopened), amount: 5)
        #expect(try reopened.history(of: bill).first?.changes.first?.values["amount"]?.new == .decimal(5))
    }

    @Test(arguments: TestStore.all) func foreignObjectsAndTokensAreRefusedAndTemporaryIDsHaveNoHistory(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try HistoryValuesStack.coordinator(location)
        let context = HistoryValuesStack.context(coordinator)
        let (bill, _) = try await Self.billWithAHistory(updates: 3, in: context)
        let store = try #require(coordinator.storeIdentifier)

        let foreign = ObjectID(entityName: "Bill", key: .permanent(store: UUID(), primaryKey: 1))
        #expect(throws: PersistentHistoryError.objectOfAnotherStore(foreign, store: store)) { try coordinator.history(of: foreign) }
        let foreignToken = PersistentHistoryToken(storeIdentifier: UUID(), transactionNumber: 1)
        #expect(throws: PersistentHistoryError.tokenOfAnotherStore(foreignToken, store: store)) {
            try coordinator.history(of: bill, startingAfter: foreignToken)
        }
        let temporary = await context.perform { Bill(context: context).objectID }
        #expect(try coordinator.history(of: temporary).isEmpty)

        // After a purge, reading forwards from before it fails; backwards shows what is kept.
        let all = try coordinator.history(of: bill, order: .oldestFirst)
        try coordinator.purgeHistory(before: all[1].token)
        #expect(throws: PersistentHistoryError.self) { try coordinator.history(of: bill, order: .oldestFirst, startingAfter: all[0].token) }
        #expect(try coordinator.history(of: bill).map(\.number) == all.dropFirst(2).reversed().map(\.number))
    }
}

/// Writes a long history straight into the history tables, in one transaction of bulk SQL:
/// what years of saves would leave, in seconds.
enum HistoryFiller {
    static func fill(_ file: StoreFileSQL, transactions: Int, changesPerTransaction: Int, objects: Int) throws {
        try file.execute("""
            BEGIN IMMEDIATE;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(transactions))
            INSERT INTO _og_history_transaction (timestamp, author, context, pid, coordinator)
                SELECT 1700000000 + i, 'filler', 'bulk', 1, 'filler' FROM n;
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < \(transactions * changesPerTransaction - 1))
            INSERT INTO _og_history_change (txn, entity, pk, kind, updated)
                SELECT (SELECT MAX(number) FROM _og_history_transaction) - \(transactions - 1) + i / \(changesPerTransaction),
                       'Bill', 1000 + (i * 7919) % \(objects), 1, 'amount' FROM n;
            INSERT INTO _og_history_value (change, property, type, destination, old, new)
                SELECT id, 'amount', 7, NULL, '1', '2' FROM _og_history_change WHERE pk >= 1000;
            COMMIT;
            """)
    }
}
