import Foundation
@testable import ObjectGraph
import Testing
@testable import InvoicesApp

/// Invoice lists' counts and totals are read once per data generation and kept for the
/// list's other pages (``ListSummaryCache``), and any change main can see reads them again.
@Suite struct ListSummaryCacheTests {
    private static let eur = [InvoiceListTotal(currency: "EUR", count: 3, amount: 10, paid: 0, outstanding: 10)]
    private static let usd = [InvoiceListTotal(currency: "USD", count: 5, amount: 20, paid: 0, outstanding: 20)]

    // MARK: The cache

    @Test func aSummaryIsUsedOnlyAtTheGenerationItWasReadAt() {
        let cache = ListSummaryCache()
        let key = ListSummaryCache.Key(InvoiceQuery(search: "retainer"), today: today)
        let first = Generation(local: 1, store: 1)
        cache.keep(totals: Self.eur, for: key, at: first)
        #expect(cache.summary(for: key, at: first)?.totals == Self.eur)
        #expect(cache.summary(for: key, at: first)?.knownCount == 3)
        #expect(cache.summary(for: key, at: Generation(local: 2, store: 1)) == nil)
        #expect(cache.summary(for: key, at: Generation(local: 1, store: 2)) == nil)
        #expect(cache.summary(for: key, at: Generation(local: 1, store: 1, merged: 1)) == nil)
        #expect(cache.summary(for: ListSummaryCache.Key(InvoiceQuery(search: "retainer"), today: today.adding(days: 1)),
                              at: first) == nil)
        #expect(cache.summary(for: ListSummaryCache.Key(InvoiceQuery(search: "phase"), today: today), at: first) == nil)
    }

    @Test func aNewerGenerationDropsTheOlderOnesSummariesAndAnOlderOneKeepsNothing() {
        let cache = ListSummaryCache()
        let a = ListSummaryCache.Key(InvoiceQuery(currency: "EUR"), today: today)
        let b = ListSummaryCache.Key(InvoiceQuery(currency: "USD"), today: today)
        let old = Generation(local: 4, store: 7), new = Generation(local: 5, store: 7)
        cache.keep(totals: Self.eur, for: a, at: old)
        cache.keep(totals: Self.usd, for: b, at: new)
        #expect(cache.summary(for: a, at: old) == nil)
        #expect(cache.summary(for: b, at: new)?.totals == Self.usd)
        // A read that began before the change ends after it: what it read is not kept.
        cache.keep(totals: Self.eur, for: a, at: old)
        #expect(cache.summary(for: a, at: old) == nil)
        #expect(cache.summary(for: a, at: new) == nil)
        #expect(cache.summary(for: b, at: new)?.totals == Self.usd)
    }

    @Test func aCountAndTotalsOfOneListAreKeptSideBySideAndTheTotalsGiveTheCount() {
        let cache = ListSummaryCache()
        let key = ListSummaryCache.Key(InvoiceQuery(status: .sent), today: today)
        let now = Generation(local: 1, store: 0)
        cache.keep(count: 8, for: key, at: now)
        #expect(cache.summary(for: key, at: now)?.knownCount == 8)
        #expect(cache.summary(for: key, at: now)?.totals == nil)
        cache.keep(totals: Self.usd, for: key, at: now)
        #expect(cache.summary(for: key, at: now)?.count == 8)
        #expect(cache.summary(for: key, at: now)?.totals == Self.usd)
    }

    @Test func pagesSortsAndPageSizesOfAListShareOneSummary() {
        let one = ListSummaryCache.Key(InvoiceQuery(search: "x", status: .paid, currency: "eur"), today: today)
        let other = ListSummaryCache.Key(InvoiceQuery(search: "x", status: .paid, currency: "EUR", sort: .amount,
                                                      descending: false, page: 7, pageSize: 20), today: today)
        #expect(one == other)
        #expect(one != ListSummaryCache.Key(InvoiceQuery(search: "y", status: .paid, currency: "EUR"), today: today))
        #expect(one != ListSummaryCache.Key(InvoiceQuery(search: "x", status: .sent, currency: "EUR"), today: today))
    }

    @Test func pastItsCapacityTheCacheKeepsTheHalfUsedLast() {
        let cache = ListSummaryCache(capacity: 4)
        let now = Generation(local: 1, store: 0)
        let keys = (1...5).map { ListSummaryCache.Key(InvoiceQuery(search: "word \($0)"), today: today) }
        for key in keys.prefix(4) { cache.keep(count: 1, for: key, at: now) }
        // The first list is asked for again (a frequent word), the others not
        #expect(cache.summary(for: keys[0], at: now)?.count == 1)
        cache.keep(count: 1, for: keys[4], at: now)
        #expect(keys.filter { cache.summary(for: $0, at: now) != nil } == [keys[0], keys[3], keys[4]])
    }

    // MARK: The stack's lists

    /// The store queries one listing runs.
    private func queries(_ stack: InvoicesStack, _ query: InvoiceQuery) async throws
        -> (listing: (page: Page<InvoiceSummary>, totals: [InvoiceListTotal]), queries: Int) {
        let before = stack.coordinator.storeReadQueryCount
        let listing = try await stack.invoiceListing(query, today: today)
        return (listing, stack.coordinator.storeReadQueryCount - before)
    }

    /// Sent invoices by identifier, two a page; `attempt` makes each try a list of its own
    /// (issued since a day long before every invoice), so that no try finds another's summary.
    private func sentInvoices(attempt: Int, page: Int = 1) -> InvoiceQuery {
        InvoiceQuery(status: .sent, issuedFrom: day("2020-01-01").adding(days: -attempt), sort: .identifier,
                     descending: false, page: page, pageSize: 2)
    }

    private func twoPages(_ stack: InvoicesStack, attempt: Int) async throws
        -> (first: (listing: (page: Page<InvoiceSummary>, totals: [InvoiceListTotal]), queries: Int, generation: Generation),
            second: (listing: (page: Page<InvoiceSummary>, totals: [InvoiceListTotal]), queries: Int, generation: Generation)) {
        let before = stack.generation
        let first = try await queries(stack, sentInvoices(attempt: attempt))
        let second = try await queries(stack, sentInvoices(attempt: attempt, page: 2))
        return ((first.listing, first.queries, before), (second.listing, second.queries, stack.generation))
    }

    @Test(arguments: StackStore.all) func theNextPageOfAListReadsItsRowsButNotItsTotals(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        // On PostgreSQL the fixture's own NOTIFY may arrive between the two pages and move the
        // generation (the second page then rightly reads the totals again), and a page now and
        // then runs a query more (a fault of a row the cache dropped): try again then. Were
        // the totals read again, every try would be one query over.
        var attempt = 0
        var (first, second) = try await twoPages(stack, attempt: attempt)
        while attempt < 20, first.generation != second.generation || second.queries != first.queries - 1 {
            try await Task.sleep(for: .milliseconds(100))
            attempt += 1
            (first, second) = try await twoPages(stack, attempt: attempt)
        }
        #expect(first.generation == second.generation)
        #expect(first.listing.page.items.map(\.number) == ["A-1", "A-3"])
        #expect(second.listing.page.items.map(\.number) == ["G-1", "G-2"])
        #expect(second.listing.totals == first.listing.totals)
        #expect(second.listing.page.totalCount == 5)
        #expect(second.queries == first.queries - 1, "page 1: \(first.queries) queries, page 2: \(second.queries)")
        let json = try await stack.invoicePage(sentInvoices(attempt: attempt, page: 3), today: today)
        #expect(json.totalCount == 5 && json.items.map(\.number) == ["I-1"])
    }

    @Test func theJSONListKeepsItsCountAndTakesTheOneKept() async throws {
        let stack = try await makeFixtureStack(.sqlite)
        let query = InvoiceQuery(currency: "EUR", sort: .identifier, descending: false, pageSize: 2)
        let generation = stack.generation
        let first = try await stack.invoicePage(query, today: today)
        #expect(first.totalCount == 4)
        let key = ListSummaryCache.Key(query, today: today)
        #expect(stack.listSummaries.summary(for: key, at: generation)?.count == 4)

        // A count kept (here a wrong one, which no read could give) is what the next page shows.
        stack.listSummaries.keep(count: 40, for: key, at: generation)
        var next = query
        next.list.page = 2
        let second = try await stack.invoicePage(next, today: today)
        #expect(second.totalCount == 40)
        #expect(second.items.map(\.number) == ["A-4", "A-5"])
    }

    @Test(arguments: StackStore.all) func anEditSavedThroughTheStackShowsInTheTotalsOfThePagesAfterIt(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        let query = InvoiceQuery(currency: "GBP", pageSize: 1)
        let before = try await stack.invoiceListing(query, today: today)
        #expect(before.totals.map(\.amount.amount) == [1_500])

        let scratchpad = stack.newScratchpad()
        try await scratchpad.perform {
            let invoice = try #require(try scratchpad.fetch(FetchRequest<Invoice>(predicate: #Predicate { $0.identifier == "G-2" })).first)
            invoice.setSingleLine(amount: 450)
        }
        guard case .saved = await stack.save(scratchpad) else { Issue.record("the edit did not save"); return }

        let after = try await stack.invoiceListing(InvoiceQuery(currency: "GBP", page: 2, pageSize: 1), today: today)
        #expect(after.totals.map(\.amount.amount) == [1_650])
        let json = try await stack.invoicePage(InvoiceQuery(currency: "GBP", page: 2, pageSize: 1), today: today)
        #expect(json.totalCount == 2)
    }

    @Test func aSearchsOtherPagesAreWindowsOfItsMatchesUntilTheDataChanges() async throws {
        // Given a search (invoices of the two Acme clients), two a page
        let stack = try await makeFixtureStack(.sqlite)
        let query = InvoiceQuery(search: "acme", sort: .identifier, descending: false, pageSize: 2)
        func page(_ number: Int) async throws -> (numbers: [String], total: Int, queries: Int) {
            var paged = query
            paged.list.page = number
            let before = stack.coordinator.storeReadQueryCount
            let page = try await stack.invoicePage(paged, today: today)
            return (page.items.map(\.number), page.totalCount, stack.coordinator.storeReadQueryCount - before)
        }
        let generation = stack.generation
        let first = try await page(1)
        #expect(first.numbers == ["A-1", "A-2"] && first.total == 6)
        let order = ListSummaryCache.OrderKey(query, today: today)
        #expect(stack.listSummaries.matches(for: order, at: generation)?.count == 6)

        // Then the next pages read only their rows: no search, no count
        let second = try await page(2)
        #expect(second.numbers == ["A-3", "A-4"] && second.total == 6)
        #expect(second.queries < first.queries, "page 1: \(first.queries) queries, page 2: \(second.queries)")
        #expect(try await page(3).numbers == ["A-5", "L-1"])

        // And an invoice saved since is found by the next page's search
        let scratchpad = stack.newScratchpad()
        try await scratchpad.perform {
            let acme = try #require(try scratchpad.fetch(FetchRequest<Client>(predicate: #Predicate { $0.name == "Acme GmbH" })).first)
            scratchpad.makeInvoice("A-6", client: acme, amount: "20.00", status: .draft)
        }
        guard case .saved = await stack.save(scratchpad) else { Issue.record("the invoice did not save"); return }
        let third = try await page(3)
        #expect(third.numbers == ["A-5", "A-6"] && third.total == 7)
    }

    @Test func matchesPastTheirCapacityLeaveThoseUsedLongestAgoAndALongerListIsNotKept() async throws {
        let stack = try await makeFixtureStack(.sqlite)
        let main = stack.main
        let ids = try await main.perform { try main.fetchObjectIDs(FetchRequest<Invoice>(sortBy: [SortDescriptor(\.identifier)])) }
        let cache = ListSummaryCache(matchCapacity: 5)
        let now = Generation(local: 1, store: 0)
        let keys = ["a", "b", "c"].map { ListSummaryCache.OrderKey(InvoiceQuery(search: $0), today: today) }
        cache.keep(matches: Array(ids.prefix(3)), for: keys[0], at: now)
        cache.keep(matches: Array(ids.prefix(2)), for: keys[1], at: now)
        #expect(cache.matches(for: keys[0], at: now)?.count == 3 && cache.matches(for: keys[1], at: now)?.count == 2)
        cache.keep(matches: Array(ids.prefix(1)), for: keys[2], at: now)
        #expect(cache.matches(for: keys[0], at: now) == nil && cache.matches(for: keys[2], at: now)?.count == 1)
        cache.keep(matches: Array(ids.prefix(6)), for: keys[0], at: now)
        #expect(cache.matches(for: keys[0], at: now) == nil)
        // Another page size or page of the same search shares its matches; another order does not
        let paged = ListSummaryCache.OrderKey(InvoiceQuery(search: "c", page: 3, pageSize: 7), today: today)
        #expect(cache.matches(for: paged, at: now)?.count == 1)
        let sorted = ListSummaryCache.OrderKey(InvoiceQuery(search: "c", sort: .amount), today: today)
        #expect(cache.matches(for: sorted, at: now) == nil)
        #expect(cache.matches(for: paged, at: Generation(local: 2, store: 0)) == nil)
    }

    @Test func anInvoiceAnotherProcessAddsShowsInTheCountAndTotals() async throws {
        let url = TestFiles.database()
        let stack = try InvoicesStack(storeURL: url)
        try await insert(into: stack) { c in
            let client = c.makeClient("Acme GmbH")
            c.makeInvoice("A-1", client: client, amount: "100", status: .sent)
        }
        let query = InvoiceQuery(status: .sent)
        #expect(try await stack.invoicePage(query, today: today).totalCount == 1)
        #expect(try await stack.invoiceListing(query, today: today).totals.map(\.amount.amount) == [100])

        // Another stack on the file stands in for another process: this one hears of its
        // commit only through the file.
        let other = try InvoicesStack(storeURL: url)
        try await insert(into: other) { c in
            let client = try #require(try c.fetch(FetchRequest<Client>()).first)
            c.makeInvoice("A-2", client: client, amount: "50", status: .sent)
        }
        #expect(try await stack.invoicePage(InvoiceQuery(status: .sent, page: 2), today: today).totalCount == 2)
        #expect(try await stack.invoiceListing(InvoiceQuery(status: .sent, page: 2), today: today).totals
                    .map(\.amount.amount) == [150])
    }
}
