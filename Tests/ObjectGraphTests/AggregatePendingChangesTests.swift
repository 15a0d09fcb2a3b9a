import Foundation
import Testing
@testable import ObjectGraph

/// Aggregates seen from a context reflect its unsaved changes, and its ancestors', as fetches do.
@Suite struct AggregatePendingChangesTests {
    private static let sent = InvoiceStatus.sent

    /// Sum and count of sent invoices per currency, as "EUR 100 1".
    private static func sentTotals(in context: ManagedObjectContext, includingPending: Bool = true) throws -> [String] {
        let sent = Self.sent
        var request = AggregateRequest(Invoice.self, predicate: #Predicate { $0.status == sent },
                                       groupBy: \.currency, computing: .sum(\.amount), .count)
        request.includesPendingChanges = includingPending
        return try context.aggregate(request).map { "\($0.0) \($0.1) \($0.2)" }
    }

    private static func invoice(_ identifier: String, in context: ManagedObjectContext) throws -> Invoice {
        try #require(try context.fetch(FetchRequest<Invoice>(predicate: #Predicate { $0.identifier == identifier })).first)
    }

    @Test(arguments: TestStore.all) func unsavedInsertsUpdatesAndDeletesChangeTheResult(_ store: TestStore) async throws {
        let coordinator = try await AggregateTests.seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            #expect(try Self.sentTotals(in: context) == ["EUR 100 1", "GBP 7.25 1", "USD 1009.99 2"])
            try Self.invoice("A-1", in: context).amount = 150            // updated in place
            try Self.invoice("A-3", in: context).currency = "GBP"        // moves to another group
            try Self.invoice("I-2", in: context).status = .paid          // no longer matches
            context.delete(try Self.invoice("G-1", in: context))         // USD loses its last invoice
            let fresh = Invoice(context: context)
            fresh.identifier = "N-1"
            fresh.amount = 5
            fresh.status = .sent
            fresh.client = try Self.invoice("A-1", in: context).client
            let before = coordinator.storeReadQueryCount
            #expect(try Self.sentTotals(in: context) == ["EUR 155 2", "GBP 10 1"])
            // The changed rows are left out of the one query and added from memory.
            #expect(coordinator.storeReadQueryCount - before == 1)
            #expect(try Self.sentTotals(in: context, includingPending: false) == ["EUR 100 1", "GBP 7.25 1", "USD 1009.99 2"])
            try context.save()
            #expect(try Self.sentTotals(in: context, includingPending: false) == ["EUR 155 2", "GBP 10 1"])
        }
    }

    @Test(arguments: TestStore.all) func aChildContextCountsItsAncestorsAndItsOwnUnsavedChanges(_ store: TestStore) async throws {
        let coordinator = try await AggregateTests.seeded(store)
        let parent = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let child = parent.newChildContext(name: "child")
        try await parent.perform {
            parent.delete(try Self.invoice("A-1", in: parent))
            let fresh = Invoice(context: parent)
            fresh.identifier = "N-1"
            fresh.amount = 5
            fresh.status = .sent
            fresh.client = try Self.invoice("A-2", in: parent).client
        }
        let childTotals = try await child.perform {
            try Self.invoice("A-3", in: child).amount = 20
            return try Self.sentTotals(in: child)
        }
        #expect(childTotals == ["EUR 5 1", "GBP 7.25 1", "USD 1019.99 2"])
        let parentTotals = try await parent.perform { try Self.sentTotals(in: parent) }
        #expect(parentTotals == ["EUR 5 1", "GBP 7.25 1", "USD 1009.99 2"])
    }

    @Test(arguments: TestStore.all) func anUnsavedChangeToARelatedObjectMovesItsObjectsToAnotherGroup(_ store: TestStore) async throws {
        let coordinator = try await AggregateTests.seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let byCity = AggregateRequest(Invoice.self, groupBy: \.client?.city, computing: .sum(\.amount), .count)
            let inParis = AggregateRequest(Invoice.self, predicate: #Predicate { $0.client?.city == "Paris" },
                                           computing: .count)
            #expect(try context.aggregate(byCity).map { "\($0.0 ?? "nil") \($0.1) \($0.2)" }
                    == ["nil 47.25 2", "Berlin 999.99 1", "Paris 360.5 3"])
            let globex = try #require(try context.fetch(FetchRequest<Client>(predicate: #Predicate { $0.name == "Globex" })).first)
            globex.city = "Paris"
            // Neither Globex's invoice nor its row changed: only its client did.
            #expect(try context.aggregate(byCity).map { "\($0.0 ?? "nil") \($0.1) \($0.2)" }
                    == ["nil 47.25 2", "Paris 1360.49 4"])
            #expect(try context.aggregate(inParis) == [4])
        }
    }

    @Test(arguments: TestStore.all) func unsavedObjectsOfANewRelatedObjectFormAGroupOfTheirOwn(_ store: TestStore) async throws {
        let coordinator = try await AggregateTests.seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let umbrella = Client(context: context)
            umbrella.name = "Umbrella"
            umbrella.city = "Rome"
            for (identifier, amount) in [("U-1", Decimal(string: "0.1")), ("U-2", Decimal(string: "0.2"))] {
                let invoice = Invoice(context: context)
                invoice.identifier = identifier
                invoice.amount = amount ?? 0
                invoice.client = umbrella
            }
            let rows = try context.aggregate(AggregateRequest(Invoice.self, groupBy: \.client?.city,
                                                              computing: .sum(\.amount), .max(\Invoice.client?.name)))
            #expect(rows.map { "\($0.0 ?? "nil") \($0.1) \($0.2 ?? "nil")" }
                    == ["nil 47.25 Initech", "Berlin 999.99 Globex", "Paris 360.5 Acme", "Rome 0.3 Umbrella"])
        }
    }
}
