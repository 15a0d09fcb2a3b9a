import Foundation
import Testing
@testable import ObjectGraph

/// Decimal sums, averages and extremes are exact, where SQLite's own functions (which read a
/// Decimal's text as a binary double, or compare it as text) are not.
@Suite struct AggregateExactnessTests {
    private static func decimal(_ text: String) throws -> Decimal { try #require(Decimal(string: text)) }

    /// A store at `url` with one client and invoices of these amounts (`I-0`, `I-1`, …).
    private static func store(at url: URL, amounts: [Decimal]) async throws -> ManagedObjectContext {
        try await seed(TestStack.coordinator(at: url), amounts: amounts)
    }

    /// A new store of this kind with one client and invoices of these amounts.
    private static func store(_ store: TestStore, amounts: [Decimal]) async throws -> ManagedObjectContext {
        try await seed(store.coordinator(), amounts: amounts)
    }

    /// One client and invoices of these amounts (`I-0`, `I-1`, …), written by a batch insert
    /// (ten thousand rows take a moment).
    private static func seed(_ coordinator: PersistentStoreCoordinator, amounts: [Decimal]) async throws -> ManagedObjectContext {
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let client = try await context.perform {
            let client = Client(context: context)
            client.name = "Acme"
            try context.save()
            return client.objectID
        }
        let rows = amounts.enumerated().map { n, amount in
            var row = PropertyValues<Invoice>()
            row.set(\.identifier, to: "I-\(n)")
            row.set(\.amount, to: amount)
            row.set(\.client, to: client)
            return row
        }
        try coordinator.execute(BatchInsertRequest(rows: rows))
        return context
    }

    @Test func tenthsAndFifthsAddUpExactlyWhereSQLitesSumDrifts() async throws {
        let url = TestStack.fileURL()
        let amounts = Array(repeating: try Self.decimal("0.1"), count: 1000) + Array(repeating: try Self.decimal("0.2"), count: 1000)
        let context = try await Self.store(at: url, amounts: amounts)
        let (sum, average) = try await context.perform {
            try onlyRow(context.aggregate(AggregateRequest(Invoice.self, computing: .sum(\.amount), .average(\.amount))))
        }
        #expect(sum == 300)
        #expect(average == (try Self.decimal("0.15")))
        let raw = try RawSQLite.rows("SELECT SUM(amount) FROM Invoice", at: url)
        #expect(raw != [["300.0"]], "SQLite's SUM adds doubles; if it ever became exact this test would say nothing")
    }

    @Test(arguments: TestStore.all) func theLargestAmountsAddUpAndCompareExactly(_ store: TestStore) async throws {
        let largest = try Self.decimal("999999999999999.9999")
        let amounts = [largest, try Self.decimal("0.0001"), try Self.decimal("999999999999999.9998")]
        let context = try await Self.store(store, amounts: amounts)
        let (sum, smallest, biggest) = try await context.perform {
            try onlyRow(context.aggregate(AggregateRequest(
                Invoice.self, computing: .sum(\.amount), .min(\.amount), .max(\.amount))))
        }
        #expect(sum == (try Self.decimal("1999999999999999.9998")))
        #expect(smallest == (try Self.decimal("0.0001")))
        // Both largest amounts are 1e15 as doubles: only an exact comparison tells them apart.
        #expect(biggest == largest)
        let pair = try await context.perform {
            try context.aggregate(AggregateRequest(
                Invoice.self, predicate: #Predicate { $0.identifier != "I-2" }, computing: .sum(\.amount)))
        }
        #expect(pair == [1_000_000_000_000_000])
    }

    @Test(arguments: TestStore.all)
    func tenThousandCentsMakeExactlyOneHundred(_ store: TestStore) async throws {
        let cent = try Self.decimal("0.01")
        let context = try await Self.store(store, amounts: Array(repeating: cent, count: 10_000))
        let (sum, average) = try await context.perform {
            try onlyRow(context.aggregate(AggregateRequest(Invoice.self, computing: .sum(\.amount), .average(\.amount))))
        }
        #expect(sum == 100)
        #expect(average == cent)
    }

    @Test func decimalExtremesCompareNumbersNotText() async throws {
        let url = TestStack.fileURL()
        let amounts = try ["9", "10", "9.5", "100", "0.5"].map(Self.decimal)
        let context = try await Self.store(at: url, amounts: amounts)
        let (smallest, largest) = try await context.perform {
            try onlyRow(context.aggregate(AggregateRequest(Invoice.self, computing: .min(\.amount), .max(\.amount))))
        }
        #expect(smallest == (try Self.decimal("0.5")))
        #expect(largest == 100)
        // As text, "9.5" is the largest: what MAX over the column gives.
        #expect(try RawSQLite.rows("SELECT MAX(amount) FROM Invoice", at: url) == [["9.5"]])
    }

    @Test(arguments: TestStore.all) func datesCompareAsDatesBeforeAndAfter1970(_ store: TestStore) async throws {
        let context = try await Self.store(store, amounts: [1, 2, 3])
        let dates = [Date(timeIntervalSince1970: -86_400 * 365), Date(timeIntervalSince1970: 5), Date(timeIntervalSince1970: 1_900_000_000)]
        let (earliest, latest) = try await context.perform {
            for (invoice, date) in zip(try context.fetch(FetchRequest<Invoice>(sortBy: [SortDescriptor(\.identifier)])), dates) {
                invoice.issueDate = date
            }
            try context.save()
            return try onlyRow(context.aggregate(AggregateRequest(Invoice.self, computing: .min(\.issueDate), .max(\.issueDate))))
        }
        #expect(earliest == dates[0])
        #expect(latest == dates[2])
    }

    @Test(arguments: TestStore.all) func unsavedDecimalsAddExactlyToSavedOnes(_ store: TestStore) async throws {
        let tenth = try Self.decimal("0.1")
        let context = try await Self.store(store, amounts: [tenth, tenth, tenth])
        let (sum, average, largest) = try await context.perform {
            let client = try #require(try context.fetch(FetchRequest<Client>()).first)
            for n in 0..<3 {
                let invoice = Invoice(context: context)
                invoice.identifier = "N-\(n)"
                invoice.amount = try Self.decimal("0.2")
                invoice.client = client
            }
            try #require(try context.fetch(FetchRequest<Invoice>(predicate: #Predicate { $0.identifier == "I-0" })).first)
                .amount = try Self.decimal("0.30000000000000000001")
            return try onlyRow(context.aggregate(AggregateRequest(
                Invoice.self, computing: .sum(\.amount), .average(\.amount), .max(\.amount))))
        }
        #expect(sum == (try Self.decimal("1.10000000000000000001")))
        #expect(average == (try Self.decimal("1.10000000000000000001")) / 6)
        #expect(largest == (try Self.decimal("0.30000000000000000001")))
    }

    @Test(arguments: TestStore.all) func numbersPastAnInt128AddAsDecimalArithmeticDoes(_ store: TestStore) async throws {
        let thirtyEightNines = try Self.decimal(String(repeating: "9", count: 38))
        let huge = try Self.decimal("1" + String(repeating: "0", count: 50))
        let context = try await Self.store(store, amounts: [thirtyEightNines, thirtyEightNines, huge])
        let (small, all) = try await context.perform {
            let small = try context.aggregate(AggregateRequest(
                Invoice.self, predicate: #Predicate { $0.identifier != "I-2" }, computing: .sum(\.amount)))
            let all = try context.aggregate(AggregateRequest(Invoice.self, computing: .max(\.amount)))
            return (small, all)
        }
        #expect(small == [thirtyEightNines + thirtyEightNines])
        #expect(all == [huge])
    }

    @Test func exactDecimalReadsOnlyTheCanonicalForm() {
        #expect(ExactDecimal("-0.007") == ExactDecimal(significand: -7, scale: 3))
        #expect(ExactDecimal("120") == ExactDecimal(significand: 120, scale: 0))
        for text in ["", "-", ".", "1e5", "+1", "1.2.3", "1,5", " 1", String(repeating: "1", count: 39)] {
            #expect(ExactDecimal(text) == nil, "\(text)")
        }
        #expect(ExactDecimal("0.00000000000000000001")?.decimal == Decimal(string: "0.00000000000000000001"))
        #expect(ExactDecimal("-123.450")?.decimal == Decimal(string: "-123.45"))
    }
}

/// The one row of an aggregate without group keys. (Outside `#require`, which cannot
/// type-check the tuples parameter packs make.)
func onlyRow<Row>(_ rows: [Row]) throws -> Row {
    try #require(rows.count == 1)
    return rows[0]
}
