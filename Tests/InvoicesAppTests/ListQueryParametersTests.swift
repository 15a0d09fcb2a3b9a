import Foundation
import Testing
@testable import InvoicesApp

@Suite struct ListQueryParametersTests {
    @Test func aClientQueryReadsItsQueryString() {
        let query = ClientQuery(parameters: ["q": " acme ", "sort": "-city", "page": "3", "page_size": "20"])
        #expect(query.list.search == "acme")
        #expect(query.list.sort == .city && query.list.descending)
        #expect(query.list.page == 3 && query.list.pageSize == 20)
        #expect(query.queryItems.map { "\($0.name)=\($0.value ?? "")" } == ["q=acme", "sort=-city", "page=3", "page_size=20"])
    }

    @Test func unreadableParametersFallBackToDefaults() {
        let query = ClientQuery(parameters: ["sort": "-shoe_size", "page": "-4", "page_size": "100000"])
        #expect(query.list.sort == .name && !query.list.descending)
        #expect(query.list.page == 1)
        #expect(query.list.pageSize == ListParameters<ClientSortKey>.maximumPageSize)
        #expect(ClientQuery(parameters: [:]).queryItems.isEmpty)
    }

    @Test func anInvoiceQueryReadsItsFilters() {
        let query = InvoiceQuery(parameters: ["status": "overdue", "currency": "eur", "client": "42",
                                              "from": "2025-01-01", "to": "2025-03-31", "sort": "amount"])
        #expect(query.status == .overdue)
        #expect(query.currency == "EUR")
        #expect(query.clientID == 42)
        #expect(query.issuedFrom == day("2025-01-01") && query.issuedThrough == day("2025-03-31"))
        #expect(query.list.sort == .amount && !query.list.descending)
        #expect(query.queryItems.map { "\($0.name)=\($0.value ?? "")" }
                == ["status=overdue", "currency=EUR", "client=42", "from=2025-01-01", "to=2025-03-31", "sort=amount"])
    }

    @Test func invoicesDefaultToNewestFirstAndKeepThatOutOfLinks() {
        let query = InvoiceQuery(parameters: ["status": "bogus", "from": "yesterday", "client": "x"])
        #expect(query.list.sort == .issueDate && query.list.descending)
        #expect(query.status == nil && query.issuedFrom == nil && query.clientID == nil)
        #expect(query.queryItems.isEmpty)
        #expect(query.list.sorted(by: .issueDate).descending == false)
    }

    @Test func clickingAColumnSortsByItThenReversesIt() {
        let query = ClientQuery(page: 4)
        let byCity = query.list.sorted(by: .city)
        #expect(byCity.sort == .city && !byCity.descending && byCity.page == 1)
        #expect(byCity.sorted(by: .city).descending)
    }
}
