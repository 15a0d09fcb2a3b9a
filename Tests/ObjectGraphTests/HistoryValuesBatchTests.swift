import Foundation
import Testing
@testable import ObjectGraph
import ObjectGraphFixtureModel

/// Values in persistent history written without a context: batch requests (old values read
/// in their transaction before they write) and another process.
@Suite struct HistoryValuesBatchTests {
    static func bills(_ amounts: [Decimal], customer: ObjectID, approver: ObjectID? = nil) -> [PropertyValues<Bill>] {
        amounts.enumerated().map { n, amount in
            var row = PropertyValues<Bill>()
            row.set(\.number, to: "B-\(n)")
            row.set(\.amount, to: amount)
            row.set(\.customer, to: customer)
            row.set(\.approver, to: approver)
            return row
        }
    }

    static func customer(_ context: ManagedObjectContext, name: String = "Acme") async throws -> ObjectID {
        try await context.perform {
            let customer = Customer(context: context)
            customer.name = name
            try context.save()
            return customer.objectID
        }
    }

    @Test(arguments: TestStore.all) func aBatchInsertRecordsTheNewValuesOfEachRow(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try HistoryValuesStack.coordinator(location)
        let customer = try await Self.customer(HistoryValuesStack.context(coordinator))
        let start = try coordinator.currentHistoryToken()

        let result = try coordinator.execute(BatchInsertRequest(rows: Self.bills([1, 2, 3], customer: customer)), author: "import")
        let transaction = try #require(try coordinator.history(after: start).first)
        #expect(transaction.author == "import")
        #expect(transaction.changes.map(\.objectID) == result.objectIDs)
        #expect(transaction.changes.map { $0.values["amount"]?.new } == [.decimal(1), .decimal(2), .decimal(3)])
        #expect(transaction.changes.allSatisfy { $0.values["customer"]?.new?.objectID == customer })
        // Unset attributes record their defaults, as they were written.
        #expect(transaction.changes.allSatisfy { $0.values["status"] == HistoryValueChange(old: nil, new: .string("open")) })
    }

    @Test(arguments: TestStore.all) func aBatchUpdateReadsTheOldValuesInItsTransactionBeforeWriting(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try HistoryValuesStack.coordinator(location)
        let customer = try await Self.customer(HistoryValuesStack.context(coordinator))
        let ids = try coordinator.execute(BatchInsertRequest(rows: Self.bills([1, 2, 3, 4], customer: customer))).objectIDs
        var paid = PropertyValues<Bill>()
        paid.set(\.status, to: .paid)
        try coordinator.execute(BatchUpdateRequest(predicate: #Predicate<Bill> { $0.amount == 3 }, set: paid))
        let start = try coordinator.currentHistoryToken()

        var settled = PropertyValues<Bill>()
        settled.set(\.amount, to: 9)
        settled.set(\.status, to: .paid)
        let result = try coordinator.execute(BatchUpdateRequest(predicate: #Predicate<Bill> { $0.amount >= 2 }, set: settled))
        #expect(Set(result.objectIDs) == Set(ids.dropFirst()))

        let changes = try coordinator.history(after: start).flatMap(\.changes)
        let byID = Dictionary(uniqueKeysWithValues: changes.map { ($0.objectID, $0) })
        #expect(byID[ids[0]] == nil)
        #expect(byID[ids[1]]?.values == ["amount": HistoryValueChange(old: .decimal(2), new: .decimal(9)),
                                         "status": HistoryValueChange(old: .string("open"), new: .string("paid"))])
        // Bill 3 was paid already: only what changed in the file is recorded.
        #expect(byID[ids[2]]?.values == ["amount": HistoryValueChange(old: .decimal(3), new: .decimal(9))])
        #expect(byID[ids[2]]?.updatedProperties == ["amount", "status"])
        #expect(byID[ids[3]]?.values["amount"]?.old == .decimal(4))
    }

    @Test(arguments: TestStore.all) func aBatchUpdateOfAnAttributeNotDeclaredRecordsNoValue(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try HistoryValuesStack.coordinator(location)
        let customer = try await Self.customer(HistoryValuesStack.context(coordinator))
        let start = try coordinator.currentHistoryToken()
        var values = PropertyValues<Customer>()
        values.set(\.name, to: "Acme AG")
        values.set(\.notes, to: "renamed")
        try coordinator.execute(BatchUpdateRequest(set: values))
        let update = try #require(try coordinator.history(after: start).first?.changes.first)
        #expect(update.objectID == customer)
        #expect(update.values == ["name": HistoryValueChange(old: .string("Acme"), new: .string("Acme AG"))])
    }

    @Test(arguments: TestStore.all) func aBatchDeleteRecordsOldValuesTombstonesAndClearedReferences(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try HistoryValuesStack.coordinator(location)
        let context = HistoryValuesStack.context(coordinator)
        let customer = try await Self.customer(context)
        let clerk = try await context.perform {
            let clerk = Clerk(context: context)
            clerk.name = "Eve"
            try context.save()
            return clerk.objectID
        }
        var rows = Self.bills([5, 6], customer: customer, approver: clerk)
        rows[0].set(\.memo, to: "first")
        let bills = try coordinator.execute(BatchInsertRequest(rows: rows)).objectIDs
        let start = try coordinator.currentHistoryToken()

        // Deleting the clerk clears the bills' approver, which records its values.
        try coordinator.execute(BatchDeleteRequest<Clerk>(objectIDs: [clerk]))
        let cleared = try #require(try coordinator.history(after: start).first)
        #expect(cleared.changes.first { $0.objectID == clerk }?.kind == .delete)
        for bill in bills {
            let change = try #require(cleared.changes.first { $0.objectID == bill })
            #expect(change.values == ["approver": HistoryValueChange(old: .reference(clerk), new: .null)])
        }

        let beforeDelete = try coordinator.currentHistoryToken()
        try coordinator.execute(BatchDeleteRequest<Bill>(predicate: nil))
        let deletes = try #require(try coordinator.history(after: beforeDelete).first).changes
        #expect(Set(deletes.map(\.objectID)) == Set(bills))
        let first = try #require(deletes.first { $0.objectID == bills[0] })
        #expect(first.values["amount"] == HistoryValueChange(old: .decimal(5), new: nil))
        #expect(first.values["approver"] == HistoryValueChange(old: .null, new: nil))
        #expect(first.tombstone?.value("memo", as: String.self) == "first")
        // A preserved attribute that records values is kept there, not twice.
        if let url = location.url { #expect(try StoreFileSQL(url).integer("SELECT COUNT(*) FROM _og_history_tombstone") == 0) }
    }

    @Test func anotherProcesssChangesAreReadableWithTheirValues() async throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = PersistentStoreCoordinator(model: SharedModel.model)
        try coordinator.addPersistentStore(SharedModel.description(at: url.path))
        let start = try coordinator.currentHistoryToken()

        let other = try await RemoteWriterProcess(storeAt: url)
        let inserted = try await other.send("insert Ada ada@example.com")
        let updated = try await other.send("update Ada 42")
        let deleted = try await other.send("delete Ada")
        let pid = other.processIdentifier
        await other.quit()
        #expect(inserted.hasPrefix("inserted") && updated == "saved" && deleted == "deleted")

        let transactions = try coordinator.history(after: start)
        #expect(transactions.count == 3)
        #expect(transactions.allSatisfy { $0.author == "fixture" && $0.processID == pid })
        let changes = transactions.compactMap(\.changes.first)
        #expect(changes.map(\.kind) == [.insert, .update, .delete])
        #expect(changes[0].values == ["email": HistoryValueChange(old: nil, new: .string("ada@example.com")),
                                      "balance": HistoryValueChange(old: nil, new: .integer(0))])
        #expect(changes[1].values == ["balance": HistoryValueChange(old: .integer(0), new: .integer(42))])
        #expect(changes[1].values["balance"]?.new(as: Int.self) == 42)
        #expect(changes[2].values == ["email": HistoryValueChange(old: .string("ada@example.com"), new: nil),
                                      "balance": HistoryValueChange(old: .integer(42), new: nil)])
        #expect(changes[2].tombstone?.value("email", as: String.self) == "ada@example.com")
    }
}
