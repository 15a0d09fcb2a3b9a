import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

/// A search for a word many invoices contain walks the list's order instead of gathering
/// every match through the substring index; the pages are the same either way.
@Suite struct SearchPlanTests {
    @Test func aFrequentWordWalksAndARareOneReadsTheIndex() {
        // A word in a third of 100,000 invoices, page 5 of 50: 750 walked against 33,000 gathered.
        #expect(ManagedObjectContext.walksSortOrder(matches: 33_000, of: 100_000, through: 250))
        // A client's ten invoices: walking would read them all and more.
        #expect(!ManagedObjectContext.walksSortOrder(matches: 10, of: 100_000, through: 50))
        // Deep pages of a common word: the walk reads too far.
        #expect(!ManagedObjectContext.walksSortOrder(matches: 2_000, of: 100_000, through: 5_000))
        #expect(!ManagedObjectContext.walksSortOrder(matches: 0, of: 100_000, through: 50))
        #expect(!ManagedObjectContext.walksSortOrder(matches: 1, of: Int.max, through: Int.max))
    }

    /// Sixty invoices, two in three with "retainer" in their notes, one client's name with it.
    private func stack(_ store: StackStore) async throws -> InvoicesStack {
        let stack = try await makeStack(store)
        try await insert(into: stack) { c in
            let plain = c.makeClient("Plain Co")
            let named = c.makeClient("Retainer Partners")
            for n in 0..<60 {
                c.makeInvoice(String(format: "R-%03d", n), client: n == 9 ? named : plain, amount: "\(n + 1)",
                              status: .sent, issued: "2025-0\(1 + n % 5)-1\(n % 10)",
                              notes: n % 3 == 0 ? "one-off" : "Monthly retainer \(n)")
            }
        }
        return stack
    }

    @Test(arguments: StackStore.all) func everyPageOfAFrequentWordIsTheIndexsPage(_ store: StackStore) async throws {
        let stack = try await stack(store)
        // Its first three pages walk (41 matches of 60, 4 a page); the rest read the index.
        #expect(ManagedObjectContext.walksSortOrder(matches: 41, of: 60, through: 12))
        #expect(!ManagedObjectContext.walksSortOrder(matches: 41, of: 60, through: 16))
        for sort in [InvoiceSortKey.issueDate, .identifier] {
            for page in 1...11 {
                let query = InvoiceQuery(search: "RETAINER", sort: sort, descending: page % 2 == 0, page: page, pageSize: 4)
                let (walked, indexed) = try await stack.main.perform {
                    (try stack.main.invoicePage(query, today: today, allInvoices: 60).items.map(\.number),
                     try stack.main.invoicePage(query, today: today).items.map(\.number))
                }
                #expect(walked == indexed, "\(sort) page \(page)")
                #expect(walked.count == (page == 11 ? 1 : 4))
            }
        }
        let page = try await stack.invoicePage(InvoiceQuery(search: "retainer", page: 2, pageSize: 9), today: today)
        #expect(page.totalCount == 41)
        #expect(page.items.count == 9)
    }
}
