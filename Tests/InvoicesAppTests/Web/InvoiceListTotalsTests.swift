import Foundation
import Testing
@testable import InvoicesApp

/// The invoice list's totals per currency, of the whole filtered list, through the real server.
@Suite struct InvoiceListTotalsTests {
    /// The totals table's rows as "currency count amount paid owed".
    private func totals(_ html: String) -> [String] {
        guard let start = html.range(of: "<section class=\"totals\"") else { return [] }
        let section = html[start.lowerBound...]
        return section.matches(of: /<tr><td>([A-Z]{3})<\/td><td class="num">(\d+)<\/td><td class="num">([^<]*)<\/td><td class="num">([^<]*)<\/td><td class="num">([^<]*)<\/td><\/tr>/)
            .map { "\($0.1) \($0.2) \($0.3) | \($0.4) | \($0.5)" }
    }

    @Test(arguments: StackStore.all) func theListShowsTotalsPerCurrencyOfEveryFilteredInvoiceNeverAddedAcrossCurrencies(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            let visitor = app.visitor()
            // INV-1 100.00 EUR sent, INV-2 50.50 EUR paid, INV-3 20.00 USD sent.
            #expect(totals(try await visitor.get("/invoices").text)
                    == ["EUR 2 150.50 EUR | 0.00 EUR | 100.00 EUR", "USD 1 20.00 USD | 0.00 USD | 20.00 USD"])
            #expect(totals(try await visitor.get("/invoices?currency=USD").text) == ["USD 1 20.00 USD | 0.00 USD | 20.00 USD"])
            #expect(totals(try await visitor.get("/invoices?status=paid").text) == ["EUR 1 50.50 EUR | 0.00 EUR | 0.00 EUR"])
            // On a page of one, the totals still count every page.
            #expect(totals(try await visitor.get("/invoices?per=1").text).count == 2)

            let list = try jsonDecoder().decode(Page<InvoiceSummary>.self, from: try await visitor.get("/invoices.json?q=INV-1").body)
            let pk = try #require(list.items.first { $0.identifier == "INV-1" }?.id)
            let (path, form) = try await visitor.openForm("/payments/new?invoice=\(pk)")
            #expect(try await visitor.post(path, [("csrf", try #require(form.csrf)), ("amount", "0.10"),
                                                  ("action", "save")]).status == 303)
            #expect(totals(try await visitor.get("/invoices").text)
                    == ["EUR 2 150.50 EUR | 0.10 EUR | 99.90 EUR", "USD 1 20.00 USD | 0.00 USD | 20.00 USD"])
            let client = try await clientID("Acme Corp", visitor: visitor)
            #expect(totals(try await visitor.get("/invoices?client=\(client)").text)
                    == ["EUR 2 150.50 EUR | 0.10 EUR | 99.90 EUR", "USD 1 20.00 USD | 0.00 USD | 20.00 USD"])
        }
    }
}
