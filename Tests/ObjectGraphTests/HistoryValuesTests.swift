import Foundation
import Testing
@testable import ObjectGraph

/// Persistent history that records values: what each save writes (inserts new values,
/// deletes old ones, updates old → new of what changed), typed as the model declares them,
/// once per change however the save got to the store.
@Suite struct HistoryValuesTests {
    static let due = Date(timeIntervalSince1970: 1_750_000_000.25)

    /// Inserts a bill (and its customer) and returns their IDs.
    static func insertBill(_ context: ManagedObjectContext, amount: Decimal = 10,
                           memo: String? = nil) async throws -> (customer: ObjectID, bill: ObjectID) {
        try await context.perform {
            let customer = Customer(context: context)
            customer.name = "Acme"
            let bill = Bill(context: context)
            bill.number = "B-1"
            bill.amount = amount
            bill.memo = memo
            bill.customer = customer
            try context.save()
            return (customer.objectID, bill.objectID)
        }
    }

    /// The changes of `id` in the transactions after `token`, oldest first.
    static func changes(of id: ObjectID, after token: PersistentHistoryToken,
                        in coordinator: PersistentStoreCoordinator) throws -> [PersistentHistoryChange] {
        try coordinator.history(after: token).flatMap { $0.changes.filter { $0.objectID == id } }
    }

    @Test(arguments: TestStore.all) func anInsertRecordsTheNewValueOfEveryRecordingPropertyInItsSwiftType(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try HistoryValuesStack.coordinator(location)
        let context = HistoryValuesStack.context(coordinator, author: "tests", name: "editor")
        let start = try coordinator.currentHistoryToken()
        let amount = try #require(Decimal(string: "12345678901234.5678"))
        let reference = UUID()
        let (customerID, billID) = try await context.perform {
            let customer = Customer(context: context)
            customer.name = "Acme"
            customer.notes = "not recorded"
            let bill = Bill(context: context)
            bill.number = "B-1"
            bill.amount = amount
            bill.status = .paid
            bill.dueDate = Self.due
            bill.reference = reference
            bill.scan = Data([0, 1, 2, 255])
            bill.customer = customer
            try context.save()
            return (customer.objectID, bill.objectID)
        }

        let transaction = try #require(try coordinator.history(after: start).first)
        #expect(transaction.author == "tests" && transaction.contextName == "editor")
        let bill = try #require(transaction.changes.first { $0.objectID == billID })
        #expect(Set(bill.values.keys) == ["number", "amount", "status", "dueDate", "reference", "scan", "memo", "customer", "approver"])
        #expect(bill.values.values.allSatisfy { $0.old == nil })
        #expect(bill.values["amount"]?.new == .decimal(amount))
        #expect(bill.values["amount"]?.new(as: Decimal.self) == amount)
        #expect(bill.values["status"]?.new == .string("paid"))
        #expect(bill.values["status"]?.new(as: PaymentStatus.self) == .paid)
        #expect(bill.values["dueDate"]?.new(as: Date.self) == Self.due)
        #expect(bill.values["reference"]?.new(as: UUID.self) == reference)
        #expect(bill.values["scan"]?.new == .data(Data([0, 1, 2, 255])))
        #expect(bill.values["memo"]?.new == .null)
        #expect(bill.values["memo"]?.new(as: String?.self) == .some(nil))
        #expect(bill.values["customer"]?.new?.objectID == customerID)
        #expect(bill.values["approver"]?.new == .null)
        let customer = try #require(transaction.changes.first { $0.objectID == customerID })
        #expect(customer.values == ["name": HistoryValueChange(old: nil, new: .string("Acme"))])
    }

    @Test(arguments: TestStore.all) func eachUpdateRecordsOldAndNewOfTheChangedPropertiesOnly(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try HistoryValuesStack.coordinator(location)
        let context = HistoryValuesStack.context(coordinator)
        let (firstCustomer, billID) = try await Self.insertBill(context)
        let start = try coordinator.currentHistoryToken()
        let secondCustomer = try await context.perform {
            let bill = try context.existingObject(with: billID, as: Bill.self)
            bill.amount = 20
            try context.save()
            bill.amount = Decimal(string: "30.50") ?? 0
            bill.status = .paid
            try context.save()
            let other = Customer(context: context)
            other.name = "Beta"
            bill.memo = "late"
            bill.customer = other
            try context.save()
            return other.objectID
        }

        let updates = try Self.changes(of: billID, after: start, in: coordinator)
        #expect(updates.map(\.kind) == [.update, .update, .update])
        #expect(updates[0].values == ["amount": HistoryValueChange(old: .decimal(10), new: .decimal(20))])
        #expect(updates[1].values == ["amount": HistoryValueChange(old: .decimal(20), new: .decimal(Decimal(string: "30.5") ?? 0)),
                                      "status": HistoryValueChange(old: .string("open"), new: .string("paid"))])
        #expect(updates[1].values["status"]?.old(as: PaymentStatus.self) == .open)
        #expect(Set(updates[2].values.keys) == ["memo", "customer"])
        #expect(updates[2].values["memo"] == HistoryValueChange(old: .null, new: .string("late")))
        #expect(updates[2].values["customer"]?.old?.objectID == firstCustomer)
        #expect(updates[2].values["customer"]?.new?.objectID == secondCustomer)
        #expect(updates.map(\.updatedProperties) == [["amount"], ["amount", "status"], ["memo", "customer"]])
    }

    @Test func aDeleteRecordsTheOldValuesAndATombstoneStoredOnce() async throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try HistoryValuesStack.coordinator(at: url)
        let context = HistoryValuesStack.context(coordinator)
        let (_, billID) = try await Self.insertBill(context, amount: 30, memo: "kept")
        let loneID = try await context.perform {
            let lone = Customer(context: context)
            lone.name = "Lone"
            lone.notes = "private"
            lone.email = "lone@example.com"
            try context.save()
            return lone.objectID
        }
        let start = try coordinator.currentHistoryToken()
        try await context.perform {
            context.delete(try context.existingObject(with: billID))
            context.delete(try context.existingObject(with: loneID))
            try context.save()
        }

        let changes = try coordinator.history(after: start).flatMap(\.changes)
        let bill = try #require(changes.first { $0.objectID == billID })
        #expect(bill.kind == .delete)
        #expect(bill.values.count == 9)
        #expect(bill.values.values.allSatisfy { $0.new == nil && $0.old != nil })
        #expect(bill.values["amount"]?.old == .decimal(30))
        #expect(bill.tombstone?.value("memo", as: String.self) == "kept")
        // Customer keeps `email` in its tombstone without recording values of it, and never `notes`.
        let lone = try #require(changes.first { $0.objectID == loneID })
        #expect(lone.values == ["name": HistoryValueChange(old: .string("Lone"), new: nil)])
        #expect(lone.tombstone?.value("email", as: String.self) == "lone@example.com")

        // In the file: the bill's memo once (its recorded old value), the customer's email in
        // the tombstone table, as it is recorded nowhere else.
        let file = try StoreFileSQL(url)
        #expect(try file.integer("SELECT COUNT(*) FROM _og_history_value WHERE property = 'memo' AND old = 'kept'") == 1)
        #expect(try file.rows("SELECT attribute, value FROM _og_history_tombstone") == [["email", "lone@example.com"]])
    }

    @Test func anAttributeNotDeclaredIsNeverRecorded() async throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try HistoryValuesStack.coordinator(at: url)
        let context = HistoryValuesStack.context(coordinator)
        let (customerID, _) = try await Self.insertBill(context)
        let start = try coordinator.currentHistoryToken()
        try await context.perform {
            let customer = try context.existingObject(with: customerID, as: Customer.self)
            customer.notes = "a secret"
            try context.save()
        }
        let update = try #require(try Self.changes(of: customerID, after: start, in: coordinator).first)
        #expect(update.updatedProperties == ["notes"])
        #expect(update.values.isEmpty)
        #expect(try StoreFileSQL(url).integer("SELECT COUNT(*) FROM _og_history_value WHERE property = 'notes'") == 0)
    }

    @Test(arguments: TestStore.all) func aChildsSaveThenItsAncestorsSavesRecordWhatReachedTheStoreOnce(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try HistoryValuesStack.coordinator(location)
        let writer = HistoryValuesStack.context(coordinator, name: "writer")
        let main = ManagedObjectContext(.mainQueue, parent: writer, name: "main")
        let scratch = main.newChildContext(name: "scratch")
        let (_, billID) = try await Self.insertBill(writer)
        let start = try coordinator.currentHistoryToken()

        try await scratch.perform {
            let bill = try scratch.existingObject(with: billID, as: Bill.self)
            bill.amount = 15
            try scratch.save()
            bill.amount = 20
            try scratch.save()
        }
        try await main.perform {
            try main.existingObject(with: billID, as: Bill.self).status = .paid
            try main.save()
        }
        #expect(try coordinator.currentHistoryToken() == start)
        try await writer.perform { try writer.save() }

        let transactions = try coordinator.history(after: start)
        #expect(transactions.count == 1)
        #expect(transactions.first?.contextName == "writer")
        #expect(transactions.first?.changes.map(\.values) == [[
            "amount": HistoryValueChange(old: .decimal(10), new: .decimal(20)),
            "status": HistoryValueChange(old: .string("open"), new: .string("paid")),
        ]])
    }

    @Test(arguments: TestStore.all) func aSaveOverANewerRowRecordsTheValueTheFileHeldAsOld(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try HistoryValuesStack.coordinator(location)
        let ours = HistoryValuesStack.context(coordinator, name: "ours")
        let theirs = HistoryValuesStack.context(coordinator, name: "theirs")
        let (_, billID) = try await Self.insertBill(ours)
        try await theirs.perform {
            try theirs.existingObject(with: billID, as: Bill.self).amount = 50
            try theirs.save()
        }
        // Ours read 10; the file holds 50 when ours writes 70 over it.
        try await ours.perform {
            ours.mergePolicy = .mergeByPropertyObjectTrump
            try ours.existingObject(with: billID, as: Bill.self).amount = 70
            try ours.save()
        }
        let last = try #require(try coordinator.history(after: nil).last)
        #expect(last.contextName == "ours")
        #expect(last.changes.first?.values == ["amount": HistoryValueChange(old: .decimal(50), new: .decimal(70))])
    }

    @Test func valuesOfPropertiesTheModelNoLongerHasStillRead() async throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try HistoryValuesStack.coordinator(at: url)
        let (_, billID) = try await Self.insertBill(HistoryValuesStack.context(coordinator))
        // As an earlier model (a date attribute since removed, a relationship to an entity
        // since removed) and a later version (a type code this one does not know) wrote them.
        let file = try StoreFileSQL(url)
        let change = try file.integer("SELECT id FROM _og_history_change WHERE entity = 'Bill'")
        try file.execute("""
            INSERT INTO _og_history_value (change, property, type, destination, old, new) VALUES
                (\(change), 'retiredOn', 6, NULL, NULL, 1700000000.5),
                (\(change), 'archive', 16, 'Vanished', NULL, 7),
                (\(change), 'future', 99, NULL, NULL, 'x');
            """)

        let insert = try #require(try coordinator.history(after: nil).flatMap(\.changes).first { $0.objectID == billID })
        #expect(insert.values["retiredOn"]?.new == .date(Date(timeIntervalSince1970: 1_700_000_000.5)))
        #expect(insert.values["archive"]?.new?.objectID?.entityName == "Vanished")
        #expect(insert.values["archive"]?.new?.objectID?.primaryKey == 7)
        #expect(insert.values["future"]?.new == .string("x"))
        #expect(insert.values["amount"]?.new == .decimal(10))
    }

    @Test func aToManyRelationshipCannotRecordValues() {
        #expect(throws: ModelError.self) { try ManagedObjectModel(entities: [Shelf.self, Book.self]) }
        do {
            _ = try ManagedObjectModel(entities: [Shelf.self, Book.self])
        } catch {
            #expect("\(error)".contains("only to-one relationships record values"))
        }
    }

    @Test func purgingHistoryRemovesItsValues() async throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try HistoryValuesStack.coordinator(at: url)
        let context = HistoryValuesStack.context(coordinator)
        let (_, billID) = try await Self.insertBill(context)
        let afterInsert = try coordinator.currentHistoryToken()
        try await context.perform {
            try context.existingObject(with: billID, as: Bill.self).amount = 11
            try context.save()
        }
        let file = try StoreFileSQL(url)
        #expect(try file.integer("SELECT COUNT(*) FROM _og_history_value") == 11)   // 9 + 1 inserted, 1 updated

        try coordinator.purgeHistory(before: afterInsert)
        #expect(try file.integer("SELECT COUNT(*) FROM _og_history_value") == 1)
        #expect(try file.integer("SELECT COUNT(*) FROM _og_history_value WHERE change NOT IN (SELECT id FROM _og_history_change)") == 0)
        let kept = try coordinator.history(after: afterInsert)
        #expect(kept.first?.changes.first?.values == ["amount": HistoryValueChange(old: .decimal(10), new: .decimal(11))])
    }

    @Test func aLargeTextIsStoredOncePerChangeThatRecordsIt() async throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try HistoryValuesStack.coordinator(at: url)
        let context = HistoryValuesStack.context(coordinator)
        let text = String(repeating: "0123456789abcdef", count: 65_536)   // 1 MiB, ASCII
        let (_, billID) = try await Self.insertBill(context, memo: text)
        try await context.perform {
            let bill = try context.existingObject(with: billID, as: Bill.self)
            bill.amount = 99
            try context.save()
            context.delete(bill)
            try context.save()
        }
        // The insert's new value and the delete's old value; not the update (memo did not
        // change), not again in the delete's tombstone.
        let file = try StoreFileSQL(url)
        #expect(try file.integer("SELECT SUM(IFNULL(LENGTH(old), 0) + IFNULL(LENGTH(new), 0)) FROM _og_history_value WHERE property = 'memo'")
                == Int64(2 * text.utf8.count))
        #expect(try file.integer("SELECT COUNT(*) FROM _og_history_tombstone") == 0)
        let delete = try #require(try coordinator.history(after: nil).last?.changes.first { $0.objectID == billID })
        #expect(delete.kind == .delete)
        #expect(delete.tombstone?.value("memo", as: String.self)?.count == text.count)
    }
}

/// A to-many relationship that asks to record values: the model refuses it.
final class Shelf: ManagedObject {
    @Relationship(inverse: \Book.shelf, recordsValuesInHistory: true) var books: Set<Book>
}

final class Book: ManagedObject {
    @Relationship var shelf: Shelf?
}
