import Foundation
@testable import ObjectGraph
import Testing
@testable import InvoicesApp

/// Page 1 of 50 over 100,000 invoices stays a bounded amount of work: a `COUNT`, one
/// `LIMIT 50` fetch and one read of the page's clients (prefetched: not one look-up each).
///
/// Counted with `storeReadQueryCount`, which is internal to ObjectGraph (hence the
/// `@testable import`). Timings are printed for the record, not asserted: this machine is
/// shared.
@Suite(.serialized) struct ListingScaleTests {
    private static let invoiceCount = 100_000
    private static let clientCount = 1_000

    /// One stack with 100,000 invoices, built once for the suite.
    private static let stack: Task<InvoicesStack, any Error> = Task {
        let stack = try makeStack()
        let context = stack.newImportContext(name: "scale")
        let batch = 10_000
        for start in stride(from: 0, to: invoiceCount, by: batch) {
            try await context.perform {
                let clients: [Client]
                if start == 0 {
                    clients = (0..<clientCount).map { context.makeClient("Client \($0)", number: "C-\($0)") }
                } else {
                    clients = try context.fetch(FetchRequest<Client>(sortBy: [SortDescriptor(\.number)]))
                }
                for n in start..<(start + batch) {
                    let invoice = Invoice(context: context)
                    invoice.identifier = "INV-\(100_000 + n)"
                    invoice.currency = ["EUR", "USD", "JPY", "GBP"][(n / 7) % 4]
                    invoice.setSingleLine(amount: Decimal(n % 5_000))
                    invoice.status = InvoiceStatus.allCases[n % 4]
                    invoice.issueDay = today.adding(days: -(n % 700))
                    invoice.dueDay = today.adding(days: -(n % 700) + 30)
                    invoice.client = clients[n % clientCount]
                }
                try context.save()
            }
        }
        return stack
    }

    private func measure(_ query: InvoiceQuery, on stack: InvoicesStack) async throws -> (Page<InvoiceSummary>, queries: Int, ms: Double) {
        let main = stack.main
        return try await main.perform { () throws -> (Page<InvoiceSummary>, Int, Double) in
            let before = stack.coordinator.storeReadQueryCount
            let start = Date()
            let page = try main.invoicePage(query, today: today)
            let elapsed = Date().timeIntervalSince(start) * 1_000
            return (page, stack.coordinator.storeReadQueryCount - before, elapsed)
        }
    }

    @Test func pageOneOfFiftyOverOneHundredThousandInvoicesIsBounded() async throws {
        let stack = try await Self.stack.value
        for query in [InvoiceQuery(), InvoiceQuery(sort: .identifier, descending: false), InvoiceQuery(sort: .amount)] {
            let (page, queries, ms) = try await measure(query, on: stack)
            #expect(page.items.count == 50)
            #expect(page.totalCount == Self.invoiceCount)
            let clients = Set(page.items.map(\.clientID)).count
            #expect(queries <= 3, "\(queries) queries for \(clients) clients")
            print("invoices page 1/50 of \(Self.invoiceCount), sort \(query.list.sort): \(queries) queries, \(String(format: "%.1f", ms)) ms")
        }
    }

    @Test func aFilteredPageIsThreeQueries() async throws {
        let stack = try await Self.stack.value
        let (page, queries, ms) = try await measure(InvoiceQuery(status: .overdue, currency: "EUR"), on: stack)
        #expect(page.totalCount > 0 && page.items.count == 50)
        #expect(queries <= 3, "\(queries) queries for \(Set(page.items.map(\.clientID)).count) clients")
        print("overdue EUR page 1/50 of \(page.totalCount): \(queries) queries, \(String(format: "%.1f", ms)) ms")
    }

    @Test func aSearchOverIdentifierNotesAndClientNameIsThreeQueries() async throws {
        let stack = try await Self.stack.value
        let (page, queries, ms) = try await measure(InvoiceQuery(search: "client 99"), on: stack)
        #expect(page.totalCount == 1_100)   // clients 99 and 990...999, 100 invoices each
        #expect(queries <= 3, "\(queries) queries for \(Set(page.items.map(\.clientID)).count) clients")
        print("search page 1/50 of \(page.totalCount): \(queries) queries, \(String(format: "%.1f", ms)) ms")
    }

    @Test func aSearchsMatchesAreGatheredUpToTheirLimitAndAWiderSearchIsCounted() async throws {
        let stack = try await Self.stack.value
        let main = stack.main
        func read(_ term: String, page: Int) async throws -> (Page<InvoiceSummary>, [ObjectID]?) {
            try await main.perform { () throws -> (Page<InvoiceSummary>, [ObjectID]?) in
                var matches: [ObjectID]?
                let page = try main.invoicePage(InvoiceQuery(search: term, page: page), today: today, knownTotal: nil,
                                                allInvoices: Self.invoiceCount, matches: &matches)
                return (page, matches)
            }
        }
        // A search of 1,100 invoices leaves their IDs, in the list's order, for its other pages
        let (narrow, kept) = try await read("client 99", page: 2)
        #expect(narrow.totalCount == 1_100 && kept?.count == 1_100)
        #expect(Array(kept?[50..<100] ?? []) == narrow.items.map { main.persistentStoreCoordinator.managedObjectID(
            for: Invoice.self, primaryKey: $0.id) })
        // One of 100,000 (every invoice's client is "Client N") is past the limit: counted,
        // nothing kept, and its page is the one the index finds
        #expect(ManagedObjectContext.keptSearchMatches < Self.invoiceCount)
        let (wide, none) = try await read("client", page: 3)
        #expect(wide.totalCount == Self.invoiceCount && none == nil)
        let indexed = try await main.perform { () throws -> [String] in
            var request = FetchRequest<Invoice>(predicate: ManagedObjectContext.invoicePredicate(InvoiceQuery(search: "client"),
                                                                                               today: today),
                                                sortBy: ManagedObjectContext.invoiceSort(.issueDate, descending: true))
            request.fetchOffset = 100
            request.fetchLimit = 50
            return try main.fetch(request).map { $0.identifier ?? "" }
        }
        #expect(wide.items.map(\.number) == indexed)
        // And with its count known (kept from an earlier page), it is not gathered again only
        // to be dropped: its page in another order is one query and its clients'
        let queries = try await main.perform { () throws -> Int in
            let before = stack.coordinator.storeReadQueryCount
            var matches: [ObjectID]?
            let page = try main.invoicePage(InvoiceQuery(search: "client", sort: .amount, page: 2), today: today,
                                            knownTotal: Self.invoiceCount, allInvoices: Self.invoiceCount, matches: &matches)
            #expect(page.items.count == 50 && matches == nil)
            return stack.coordinator.storeReadQueryCount - before
        }
        #expect(queries <= 2, "\(queries) queries")
    }

    @Test func theClientListIsTwoQueries() async throws {
        let stack = try await Self.stack.value
        let main = stack.main
        let (page, queries) = try await main.perform { () throws -> (Page<ClientSummary>, Int) in
            let before = stack.coordinator.storeReadQueryCount
            let page = try main.clientPage(ClientQuery(sort: .name))
            return (page, stack.coordinator.storeReadQueryCount - before)
        }
        #expect(page.items.count == 50 && page.totalCount == Self.clientCount)
        #expect(queries == 2)
    }
}
