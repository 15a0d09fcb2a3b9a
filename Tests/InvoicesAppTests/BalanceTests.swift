import Foundation
import Testing
@testable import InvoicesApp

@Suite struct BalanceTests {
    @Test(arguments: StackStore.all) func aClientsTotalsArePerCurrencyOverSentAndPaidInvoices(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        let detail = try #require(try await stack.clientDetail(id: try await clientID("Acme GmbH", in: stack), today: today))
        #expect(detail.totals.currencies == ["EUR", "USD"])
        #expect(detail.totals["EUR"] == decimal("350.50"))   // A-1 sent + A-2 paid; not the draft, not the cancelled
        #expect(detail.totals["USD"] == decimal("80"))
    }

    @Test(arguments: StackStore.all) func theBalanceIsWhatIsSentAndUnpaidOverdueIncluded(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        let detail = try #require(try await stack.clientDetail(id: try await clientID("Acme GmbH", in: stack), today: today))
        #expect(detail.balance.formatted == ["100.00 EUR", "80.00 USD"])
        #expect(detail.overdue.formatted == ["100.00 EUR"])
    }

    @Test(arguments: StackStore.all) func aClientWithEverythingPaidHasNoBalance(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        let detail = try #require(try await stack.clientDetail(id: try await clientID("Acme Labs Inc.", in: stack), today: today))
        #expect(detail.balance.isEmpty)
        #expect(detail.totals.formatted == ["75.25 USD"])
    }

    @Test(arguments: StackStore.all) func aClientPageEncodesItsMoneyAsExactStrings(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        let detail = try #require(try await stack.clientDetail(id: try await clientID("Initech K.K.", in: stack), today: today))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(detail), as: UTF8.self)
        #expect(json.contains(#""balance":[{"amount":"150000","currency":"JPY","formatted":"150,000 JPY"}]"#))
        #expect(json.contains(#""isOverdue":true"#))
        let decoded = try JSONDecoder().decode(ClientDetail.self, from: Data(json.utf8))
        #expect(decoded == detail)
    }

    @Test func theBalanceRuleCountsOnlySentInvoices() {
        func summary(_ status: InvoiceStatus, _ amount: String, _ currency: String) -> InvoiceSummary {
            InvoiceSummary(id: 1, identifier: "X", clientID: 1, clientName: "C", amount: Money(amount: decimal(amount), currency: currency),
                           status: status, isOverdue: false, issueDate: today, dueDate: today)
        }
        let invoices = [summary(.sent, "10", "EUR"), summary(.paid, "20", "EUR"), summary(.draft, "30", "EUR"),
                        summary(.cancelled, "40", "EUR"), summary(.sent, "500", "JPY")]
        #expect(ClientDetail.balance(of: invoices).formatted == ["10.00 EUR", "500 JPY"])
        #expect(ClientDetail.totals(of: invoices).formatted == ["30.00 EUR", "500 JPY"])
    }
}
