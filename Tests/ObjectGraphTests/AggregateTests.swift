import Foundation
import Testing
@testable import ObjectGraph

/// Aggregate requests against saved rows: the functions, grouping, predicates, empty sets and
/// the errors of requests that cannot be run.
@Suite struct AggregateTests {
    static func day(_ n: Int) -> Date { Date(timeIntervalSince1970: 1_700_000_000 + Double(n) * 86_400) }

    /// Six invoices of three clients (Initech has no city), saved.
    static func seeded(_ store: TestStore) async throws -> PersistentStoreCoordinator {
        try await seed(store.coordinator())
    }

    /// ``seeded(_:)`` in an SQLite file at `url` (for tests that read the file's query plans).
    static func seededCoordinator(at url: URL) async throws -> PersistentStoreCoordinator {
        try await seed(TestStack.coordinator(at: url))
    }

    private static func seed(_ coordinator: PersistentStoreCoordinator) async throws -> PersistentStoreCoordinator {
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            var clients: [String: Client] = [:]
            for (name, city) in [("Acme", "Paris"), ("Globex", "Berlin"), ("Initech", nil)] as [(String, String?)] {
                let client = Client(context: context)
                client.name = name
                client.city = city
                clients[name] = client
            }
            let rows: [(String, String, Decimal, String, InvoiceStatus, Int, Double)] = [
                ("A-1", "Acme", 100, "EUR", .sent, 2, 1.5),
                ("A-2", "Acme", Decimal(string: "250.5") ?? 0, "EUR", .paid, 1, 2.5),
                ("A-3", "Acme", 10, "USD", .sent, 3, 0.5),
                ("G-1", "Globex", Decimal(string: "999.99") ?? 0, "USD", .sent, 5, 4),
                ("I-1", "Initech", 40, "EUR", .draft, 1, 1),
                ("I-2", "Initech", Decimal(string: "7.25") ?? 0, "GBP", .sent, 4, 0.25),
            ]
            for (n, (identifier, client, amount, currency, status, quantity, weight)) in rows.enumerated() {
                let invoice = Invoice(context: context)
                invoice.identifier = identifier
                invoice.client = clients[client]
                invoice.amount = amount
                invoice.currency = currency
                invoice.status = status
                invoice.quantity = quantity
                invoice.weight = weight
                invoice.sequence = Int64(n + 1) * 10
                invoice.issueDate = day(n + 1)
                invoice.notes = n % 3 == 0 ? "note \(n)" : nil
            }
            try context.save()
        }
        return coordinator
    }

    @Test(arguments: TestStore.all) func totalsPerCurrencyOfFilteredInvoicesComeFromOneQuery(_ store: TestStore) async throws {
        let coordinator = try await Self.seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let (rows, queries) = try await context.perform {
            let before = coordinator.storeReadQueryCount
            let sent = InvoiceStatus.sent
            let rows = try context.aggregate(AggregateRequest(
                Invoice.self, predicate: #Predicate { $0.status == sent },
                groupBy: \.currency, computing: .sum(\.amount), .count))
            return (rows.map { "\($0.0) \($0.1) \($0.2)" }, coordinator.storeReadQueryCount - before)
        }
        #expect(rows == ["EUR 100 1", "GBP 7.25 1", "USD 1009.99 2"])
        #expect(queries == 1)
    }

    @Test(arguments: TestStore.all) func eachFunctionWorksOnEachAttributeTypeItTakes(_ store: TestStore) async throws {
        let coordinator = try await Self.seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let rows = try context.aggregate(AggregateRequest(
                Invoice.self,
                computing: .count, .sum(\.quantity), .sum(\.sequence), .sum(\.weight), .average(\.quantity),
                .average(\.amount), .min(\.issueDate), .max(\.issueDate), .min(\.identifier), .max(\.identifier),
                .count(\.notes)))
            #expect(rows.count == 1)
            let (count, quantity, sequence, weight, averageQuantity, averageAmount,
                 earliest, latest, first, last, noted) = try #require(rows.first)
            #expect(count == 6)
            #expect(quantity == 16)
            #expect(sequence == 210)
            #expect(weight == 9.75)
            #expect(averageQuantity == 16.0 / 6.0)
            #expect(averageAmount == (Decimal(string: "1407.74") ?? 0) / 6)
            #expect(earliest == Self.day(1))
            #expect(latest == Self.day(6))
            #expect(first == "A-1")
            #expect(last == "I-2")
            #expect(noted == 2)
        }
    }

    @Test(arguments: TestStore.all) func groupsByAnAttributeOfAToOneRelationshipNilFirst(_ store: TestStore) async throws {
        let coordinator = try await Self.seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let rows = try await context.perform {
            try context.aggregate(AggregateRequest(Invoice.self, groupBy: \.client?.city, computing: .sum(\.amount), .count))
                .map { "\($0.0 ?? "nil") \($0.1) \($0.2)" }
        }
        #expect(rows == ["nil 47.25 2", "Berlin 999.99 1", "Paris 360.5 3"])
    }

    @Test(arguments: TestStore.all) func groupsByTwoKeysOneOfThemAnEnumeration(_ store: TestStore) async throws {
        let coordinator = try await Self.seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let rows = try await context.perform {
            try context.aggregate(AggregateRequest(Invoice.self, groupBy: \.status, \.currency, computing: .count))
                .map { (status: InvoiceStatus, currency: String, count: Int) in "\(status.rawValue) \(currency) \(count)" }
        }
        #expect(rows == ["draft EUR 1", "paid EUR 1", "sent EUR 1", "sent GBP 1", "sent USD 2"])
    }

    @Test(arguments: TestStore.all) func aPredicateThroughARelationshipSelectsTheRows(_ store: TestStore) async throws {
        let coordinator = try await Self.seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let total = try await context.perform {
            try context.aggregate(AggregateRequest(
                Invoice.self, predicate: #Predicate { $0.client?.city == "Paris" && $0.amount > 50 },
                computing: .sum(\.amount)))
        }
        #expect(total == [Decimal(string: "350.5")])
    }

    @Test(arguments: TestStore.all) func overNoObjectsCountsAndSumsAreZeroAndTheRestNil(_ store: TestStore) async throws {
        let coordinator = try await Self.seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let none = #Predicate<Invoice> { $0.amount > 1_000_000 }
            let rows = try context.aggregate(AggregateRequest(
                predicate: none, computing: .count, .sum(\.amount), .sum(\.quantity), .min(\.amount),
                .max(\.issueDate), .average(\.amount), .average(\.weight)))
            #expect(rows.count == 1)
            let (count, amount, quantity, smallest, latest, averageAmount, averageWeight) = try #require(rows.first)
            #expect(count == 0 && amount == 0 && quantity == 0)
            #expect(smallest == nil && latest == nil && averageAmount == nil && averageWeight == nil)
            let grouped = try context.aggregate(AggregateRequest(predicate: none, groupBy: \.currency, computing: .count))
            #expect(grouped.isEmpty)
        }
    }

    @Test(arguments: TestStore.all) func anIntegerSumPast64BitsThrowsOverflow(_ store: TestStore) async throws {
        let coordinator = try await Self.seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            for invoice in try context.fetch(FetchRequest<Invoice>()) { invoice.quantity = Int.max }
            try context.save()
            let sum = AggregateRequest(Invoice.self, computing: .sum(\.quantity))
            #expect(aggregateError(sum, in: context) == .overflow("\\Invoice.quantity"))
            // Extremes add nothing up: they still work.
            let largest = try context.aggregate(AggregateRequest(Invoice.self, computing: .max(\.quantity)))
            #expect(largest == [Int.max])
        }
    }

    @Test(arguments: TestStore.all) func requestsThatCannotBeRunThrowErrorsSayingWhatToDo(_ store: TestStore) async throws {
        let coordinator = try await Self.seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        await context.perform {
            let toMany = aggregateError(AggregateRequest(Client.self, groupBy: \.invoices.count), in: context)
            #expect(toMany == .throughToMany(keyPath: "\\Client.invoices", relationship: "Client.invoices",
                                             destination: "Invoice"))
            #expect(toMany?.description.contains("aggregate Invoice instead") == true)
            let throughClient = aggregateError(AggregateRequest(Invoice.self, computing: .sum(\Invoice.client?.invoices.count)),
                                               in: context)
            #expect(throughClient == .throughToMany(keyPath: "\\Invoice.client.invoices",
                                                    relationship: "Client.invoices", destination: "Invoice"))
            let uuid = aggregateError(AggregateRequest(Invoice.self, computing: .min(\.reference)), in: context)
            #expect(uuid == .unsupportedFunction("min", keyPath: "\\Invoice.reference", type: .uuid))
            #expect(uuid?.description.contains("min and max also take dates and strings") == true)
            let computed = aggregateError(AggregateRequest(Invoice.self, groupBy: \.isLarge), in: context)
            #expect(computed == .notAStoredAttribute(keyPath: "\\Invoice.amount…", entity: "Invoice"))
            let predicate = aggregateError(AggregateRequest(Invoice.self, predicate: #Predicate { $0.isLarge },
                                                            computing: .count), in: context)
            guard case .untranslatablePredicate? = predicate else {
                Issue.record("expected untranslatablePredicate, got \(String(describing: predicate))")
                return
            }
        }
    }
}

/// The error an aggregate request throws, or nil if it runs. A function of its own because
/// `#expect` cannot type-check a parameter-pack initializer written inside it.
func aggregateError<Root, Row>(_ request: AggregateRequest<Root, Row>, in context: ManagedObjectContext) -> AggregateError? {
    do {
        _ = try context.aggregate(request)
        return nil
    } catch {
        return error as? AggregateError
    }
}
