import Foundation
import Testing
@testable import ObjectGraph

/// A batch request that breaks a uniqueness constraint is refused naming the model's
/// constraint (entity and properties), found by looking the values up, not by reading the
/// database's message; nothing is written.
@Suite struct BatchUniquenessTests {
    /// The entity and properties a batch error names, or nil for another error.
    private static func violation(of body: () throws -> Void) -> (entity: String, properties: [String])? {
        do {
            try body()
        } catch BatchError.uniquenessViolation(let entity, let properties, _) {
            return (entity, properties)
        } catch {
            Issue.record("another error: \(error)")
        }
        return nil
    }

    private static func members(_ names: [(String, String)]) -> [PropertyValues<Member>] {
        names.map { first, last in
            var row = PropertyValues<Member>()
            row.set(\.first, to: first)
            row.set(\.last, to: last)
            return row
        }
    }

    @Test(arguments: TestStore.all) func aBatchInsertOfAValueARowHoldsNamesTheConstraint(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let client = try await BatchTests.clientID(named: "Acme", in: context)
        try coordinator.execute(BatchInsertRequest(rows: BatchTests.invoiceRows(3, client: client)))

        let named = Self.violation {
            try coordinator.execute(BatchInsertRequest(rows: BatchTests.invoiceRows(2, client: client, prefix: "C")
                                                       + BatchTests.invoiceRows(1, client: client)))
        }
        #expect(named?.entity == "Invoice")
        #expect(named?.properties == ["identifier"])
        #expect(try await coordinator.count(Invoice.self) == 3)
    }

    @Test(arguments: TestStore.all) func twoRowsOfOneBatchInDifferentStatementsNameTheConstraint(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let client = try await BatchTests.clientID(named: "Acme", in: context)
        // Rows go in by 64 per statement: row 10 is written by the first, row 150 by the third.
        var rows = BatchTests.invoiceRows(200, client: client)
        rows[150].set(\.identifier, to: "B-10")

        let named = Self.violation { try coordinator.execute(BatchInsertRequest(rows: rows)) }
        #expect(named?.entity == "Invoice")
        #expect(named?.properties == ["identifier"])
        #expect(try await coordinator.count(Invoice.self) == 0)
    }

    @Test(arguments: TestStore.all) func aCompoundConstraintIsNamedWithAllItsProperties(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        try coordinator.execute(BatchInsertRequest(rows: Self.members([("Ada", "Lovelace"), ("Ada", "Byron")])))

        let named = Self.violation {
            try coordinator.execute(BatchInsertRequest(rows: Self.members([("Alan", "Turing"), ("Ada", "Byron")])))
        }
        #expect(named?.entity == "Member")
        #expect(named?.properties == ["first", "last"])
        #expect(try await coordinator.count(Member.self) == 2)
    }

    @Test(arguments: TestStore.all) func aBatchUpdateGivingTwoRowsOneValueNamesTheConstraint(_ store: TestStore) async throws {
        let coordinator = try store.coordinator()
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let client = try await BatchTests.clientID(named: "Acme", in: context)
        try coordinator.execute(BatchInsertRequest(rows: BatchTests.invoiceRows(4, client: client)))

        var values = PropertyValues<Invoice>()
        values.set(\.identifier, to: "same")
        let sent = InvoiceStatus.sent
        let named = Self.violation {
            try coordinator.execute(BatchUpdateRequest(predicate: #Predicate<Invoice> { $0.status == sent }, set: values))
        }
        #expect(named?.entity == "Invoice")
        #expect(named?.properties == ["identifier"])
        let identifiers = try await context.perform {
            Set(try context.fetch(FetchRequest<Invoice>()).map(\.identifier))
        }
        #expect(identifiers == ["B-0", "B-1", "B-2", "B-3"])
    }

    @Test(arguments: TestStore.all) func aBatchUpdateOfOnePropertyOfACompoundConstraintNamesTheConstraint(_ store: TestStore) throws {
        let coordinator = try store.coordinator()
        try coordinator.execute(BatchInsertRequest(rows: Self.members([("Ada", "Lovelace"), ("Ada", "Byron"),
                                                                       ("Alan", "Turing")])))
        var values = PropertyValues<Member>()
        values.set(\.last, to: "Turing")
        // Ada Byron becomes Ada Turing: free, since Turing's first name is Alan.
        try coordinator.execute(BatchUpdateRequest(predicate: #Predicate<Member> { $0.last == "Byron" }, set: values))

        // Both Adas Turing: the pair clashes.
        let named = Self.violation {
            try coordinator.execute(BatchUpdateRequest(predicate: #Predicate<Member> { $0.first == "Ada" }, set: values))
        }
        #expect(named?.entity == "Member")
        #expect(named?.properties == ["first", "last"])
    }
}

extension PersistentStoreCoordinator {
    /// How many objects of `type` the store holds.
    func count<T: ManagedObject>(_ type: T.Type) async throws -> Int {
        let context = ManagedObjectContext(.privateQueue, coordinator: self)
        return try await context.perform { try context.count(for: FetchRequest<T>()) }
    }
}
