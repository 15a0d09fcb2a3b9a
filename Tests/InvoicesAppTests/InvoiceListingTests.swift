import Foundation
import Testing
@testable import InvoicesApp

@Suite struct InvoiceListingTests {
    private func identifiers(_ stack: InvoicesStack, _ query: InvoiceQuery) async throws -> [String] {
        try await stack.invoicePage(query, today: today).items.map(\.number)
    }

    @Test(arguments: StackStore.all) func theDefaultListIsNewestFirst(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        let page = try await stack.invoicePage(InvoiceQuery(), today: today)
        #expect(page.items.map(\.identifier) == ["U-1", "A-4", "G-2", "A-3", "G-1", "A-1", "I-1", "A-2", "A-5", "I-2", "L-1"])
        #expect(page.totalCount == 11)
    }

    @Test(arguments: StackStore.all) func rowsCarryTheClientTheMoneyAndTheDerivedStatus(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        let page = try await stack.invoicePage(InvoiceQuery(search: "G-1"), today: today)
        let row = try #require(page.items.first)
        #expect(row.clientName == "Globex Ltd")
        #expect(row.amount.formatted == "1,200.00 GBP")
        #expect(row.status == .sent && row.isOverdue && row.displayStatus == "overdue")
        #expect(row.dueDate == day("2025-06-14"))
    }

    @Test(arguments: StackStore.all) func theStatusFilterSelectsStoredStatuses(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        #expect(try await identifiers(stack, InvoiceQuery(status: .sent, sort: .identifier, descending: false))
                == ["A-1", "A-3", "G-1", "G-2", "I-1"])
        #expect(try await identifiers(stack, InvoiceQuery(status: .paid, sort: .identifier, descending: false))
                == ["A-2", "I-2", "L-1"])
        #expect(try await identifiers(stack, InvoiceQuery(status: .cancelled)) == ["A-5"])
    }

    @Test(arguments: StackStore.all) func theOverdueFilterSelectsSentInvoicesPastTheirDueDate(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        #expect(try await identifiers(stack, InvoiceQuery(status: .overdue, sort: .identifier, descending: false))
                == ["A-1", "G-1", "I-1"])
        // A day later, the invoice due today is overdue too: nothing was saved in between.
        let tomorrow = try await stack.invoicePage(InvoiceQuery(status: .overdue), today: today.adding(days: 1))
        #expect(tomorrow.items.map(\.number).sorted() == ["A-1", "G-1", "G-2", "I-1"])
    }

    @Test(arguments: StackStore.all) func theCurrencyFilterSelectsOneCurrency(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        #expect(try await identifiers(stack, InvoiceQuery(currency: "jpy", sort: .identifier, descending: false)) == ["I-1", "I-2"])
    }

    @Test(arguments: StackStore.all) func theClientFilterSelectsOneClientsInvoicesSortedAndPaged(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        let acme = try await clientID("Acme GmbH", in: stack)
        let page = try await stack.invoicePage(InvoiceQuery(clientID: acme, sort: .amount, descending: true, pageSize: 2), today: today)
        #expect(page.items.map(\.identifier) == ["A-5", "A-2"])
        #expect(page.totalCount == 5 && page.pageCount == 3)
        let last = try await stack.invoicePage(InvoiceQuery(clientID: acme, sort: .amount, descending: true, page: 3, pageSize: 2), today: today)
        #expect(last.items.map(\.identifier) == ["A-4"])
        #expect(try await identifiers(stack, InvoiceQuery(status: .overdue, clientID: acme)) == ["A-1"])
        #expect(try await identifiers(stack, InvoiceQuery(clientID: 9_999)).isEmpty)
    }

    @Test(arguments: StackStore.all) func theDateRangeIncludesBothEndsOfTheIssueDate(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        let may = InvoiceQuery(issuedFrom: day("2025-05-01"), issuedThrough: day("2025-05-20"), sort: .issueDate, descending: false)
        #expect(try await identifiers(stack, may) == ["A-1", "G-1"])
        #expect(try await identifiers(stack, InvoiceQuery(issuedFrom: day("2025-06-10"))) == ["U-1", "A-4"])
        #expect(try await identifiers(stack, InvoiceQuery(issuedThrough: day("2025-01-31"))) == ["L-1"])
    }

    @Test(arguments: StackStore.all) func theSearchMatchesIdentifierNotesAndClientName(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        #expect(try await identifiers(stack, InvoiceQuery(search: "rush")) == ["I-1"])
        #expect(try await identifiers(stack, InvoiceQuery(search: "GLOBEX", sort: .identifier, descending: false)) == ["G-1", "G-2"])
        #expect(try await identifiers(stack, InvoiceQuery(search: "u-1")) == ["U-1"])
    }

    @Test(arguments: StackStore.all) func filtersCombine(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        #expect(try await identifiers(stack, InvoiceQuery(search: "acme", status: .sent, currency: "EUR")) == ["A-1"])
    }

    @Test(arguments: StackStore.all) func amountsSortAsNumbersNotText(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        let amounts = try await stack.invoicePage(InvoiceQuery(sort: .amount, descending: false), today: today).items.map(\.amount.plainAmount)
        #expect(amounts == ["10.00", "75.25", "80.00", "100.00", "250.50", "300.00", "500.00", "999.99", "1200.00", "98000", "150000"])
    }

    @Test(arguments: StackStore.all) func invoicesSortByClientStatusAndDueDate(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        let byClient = try await stack.invoicePage(InvoiceQuery(sort: .client, descending: false), today: today).items.map(\.clientName)
        #expect(byClient == ["Acme GmbH", "Acme GmbH", "Acme GmbH", "Acme GmbH", "Acme GmbH", "Acme Labs Inc.",
                             "Globex Ltd", "Globex Ltd", "Initech K.K.", "Initech K.K.", "Umbrella SA"])
        let byStatus = try await stack.invoicePage(InvoiceQuery(sort: .status, descending: false), today: today).items.map(\.status.rawValue)
        #expect(byStatus == byStatus.sorted())
        let byDue = try await stack.invoicePage(InvoiceQuery(sort: .dueDate, descending: false), today: today).items.map(\.dueDate)
        #expect(byDue == byDue.sorted())
    }

    @Test(arguments: StackStore.all) func anInvoicePageHasItsClientsAddress(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        let id = try #require(try await stack.invoicePage(InvoiceQuery(search: "I-1"), today: today).items.first?.id)
        let detail = try #require(try await stack.invoiceDetail(id: id, today: today))
        #expect(detail.client.name == "Initech K.K.")
        #expect(detail.client.lines == ["Tokyo", "Japan"])
        #expect(detail.notes == "Rush order")
        #expect(detail.daysOverdue == 31)
        #expect(try await stack.invoiceDetail(id: 9_999) == nil)
    }

    @Test(arguments: StackStore.all) func theExportListsEveryMatchingInvoiceWithoutPaging(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        let rows = try await stack.invoiceSummaries(InvoiceQuery(status: .sent, pageSize: 2), today: today)
        #expect(rows.count == 5)
    }
}
