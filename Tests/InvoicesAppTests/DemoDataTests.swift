import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

/// Generated once for the suite: each generation is seconds of work in a debug build, and
/// the tests run on the few threads every other asynchronous test needs too.
private let standardData = DemoData.standard(today: today)

@Suite struct DemoDataTests {
    @Test func theStandardDataHas200ClientsAnd2000Invoices() {
        let data = standardData
        #expect(data.clients.count == 200)
        #expect(data.invoices.count == 2_000)
        #expect(Set(data.invoices.map(\.clientIndex)).count == 200)
    }

    @Test func theSameSeedGivesTheSameData() {
        let again = DemoData.standard(today: today)
        #expect(again.clients == standardData.clients)
        #expect(again.invoices == standardData.invoices)
        #expect(DemoData(seed: 1, clientCount: 20, invoiceCount: 50, today: today).invoices
                != DemoData(seed: 2, clientCount: 20, invoiceCount: 50, today: today).invoices)
    }

    @Test func clientsLiveInSeveralCountriesWithUniqueValidEmails() {
        let clients = standardData.clients
        #expect(Set(clients.map(\.country)).count >= 6)
        let emails = clients.compactMap(\.email)
        #expect(emails.count > 150 && emails.count < 200)
        #expect(Set(emails).count == emails.count)
        #expect(emails.allSatisfy(EmailAddress.isValid))
        #expect(Set(clients.map(\.name)).count == clients.count)
        #expect(clients.allSatisfy { !($0.street ?? "").isEmpty && !($0.zip ?? "").isEmpty && !($0.city ?? "").isEmpty })
    }

    @Test func invoicesUseSeveralCurrenciesWithTheirMinorUnits() {
        let invoices = standardData.invoices
        let currencies = Set(invoices.map(\.currency))
        #expect(currencies.isSuperset(of: ["EUR", "USD", "JPY", "GBP", "CHF"]))
        for invoice in invoices {
            #expect(Currency.named(invoice.currency)?.allows(invoice.amount) == true, "\(invoice.identifier) \(invoice.amount) \(invoice.currency)")
            #expect(invoice.amount > 0)
        }
        #expect(invoices.contains { $0.currency == "EUR" && $0.amount.decimalPlaces == 2 })
        #expect(invoices.filter { $0.currency == "JPY" }.allSatisfy { $0.amount >= 1_000 })
    }

    @Test func invoicesHaveOneToFourLinesThatAddUpToTheirAmount() {
        let invoices = standardData.invoices
        #expect(invoices.allSatisfy { (1...4).contains($0.lines.count) })
        #expect(Set(invoices.map(\.lines.count)) == [1, 2, 3, 4])
        for invoice in invoices {
            let total = invoice.lines.reduce(Decimal(0)) { $0 + $1.total(in: invoice.currency) }
            #expect(total == invoice.amount, "\(invoice.identifier)")
            #expect(invoice.lines.allSatisfy { $0.quantity > 0 && $0.unitPrice > 0 && !$0.description.isEmpty })
        }
        #expect(invoices.contains { $0.lines.contains { $0.taxRate > 0 } })
    }

    @Test func statusesAndDatesArePlausibleAndSomeInvoicesAreOverdue() {
        let invoices = standardData.invoices
        #expect(Set(invoices.map(\.status)) == Set(InvoiceStatus.allCases))
        #expect(invoices.allSatisfy { $0.dueDate >= $0.issueDate && $0.issueDate <= today })
        let overdue = invoices.filter { Invoice.isOverdue(status: $0.status, dueDay: $0.dueDate, today: today) }
        #expect(overdue.count >= 20)
        #expect(invoices.filter { $0.status == .sent && $0.dueDate >= today }.count >= 20)
        // Sent ones are numbered, per year in order of issue; drafts are not yet.
        let numbered = invoices.filter { $0.status != .draft }
        #expect(Set(numbered.compactMap(\.identifier)).count == numbered.count)
        #expect(invoices.filter { $0.status == .draft }.allSatisfy { $0.identifier == nil })
    }

    @Test func paidInvoicesArePaidInFullAndSomeSentOnesInPart() {
        let invoices = standardData.invoices
        for invoice in invoices where invoice.status == .paid {
            #expect(invoice.payments.reduce(Decimal(0)) { $0 + $1.amount } == invoice.amount)
        }
        let partial = invoices.filter { $0.status == .sent && !$0.payments.isEmpty }
        #expect(partial.count >= 20)
        #expect(partial.allSatisfy { $0.payments.reduce(Decimal(0)) { $0 + $1.amount } < $0.amount })
        #expect(invoices.filter { $0.status == .draft || $0.status == .cancelled }.allSatisfy { $0.payments.isEmpty })
    }

    @Test func theDataPassesTheModelsOwnValidationWhenSeeded() async throws {
        let stack = try makeStack()
        let seeded = try await stack.seedDemoDataIfEmpty(standardData)
        #expect(seeded)
        let counts = try await stack.main.perform { () throws -> (Int, Int) in
            (try stack.main.count(for: FetchRequest<Client>()), try stack.main.count(for: FetchRequest<Invoice>()))
        }
        #expect(counts == (200, 2_000))
        let data = standardData
        let lines = try await stack.main.perform { try stack.main.count(for: FetchRequest<LineItem>()) }
        #expect(lines == data.invoices.reduce(0) { $0 + $1.lines.count })
        let overdue = try await stack.invoicePage(InvoiceQuery(status: .overdue), today: today)
        #expect(overdue.totalCount > 0)
    }

    @Test func seedingLeavesADatabaseWithClientsAlone() async throws {
        let stack = try makeStack()
        try await insert(into: stack) { c in c.makeClient("Existing") }
        #expect(try await stack.seedDemoDataIfEmpty(standardData) == false)
        let page = try await stack.clientPage(ClientQuery())
        #expect(page.items.map(\.name) == ["Existing"])
    }
}
