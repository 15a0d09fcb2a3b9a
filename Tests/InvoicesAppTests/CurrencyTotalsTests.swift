import Foundation
import Testing
@testable import InvoicesApp

@Suite struct CurrencyTotalsTests {
    @Test func amountsAreSummedPerCurrencyAndNeverAcross() {
        var totals = CurrencyTotals()
        totals.add(Money(amount: 10, currency: "EUR"))
        totals.add(Money(amount: 5000, currency: "JPY"))
        totals.add(Money(amount: decimal("2.5"), currency: "EUR"))
        #expect(totals["EUR"] == decimal("12.5"))
        #expect(totals["JPY"] == 5000)
        #expect(totals["USD"] == 0)
        #expect(totals.currencies == ["EUR", "JPY"])
        #expect(totals.totals.count == 2)
    }

    @Test func totalsAreFormattedOnePerCurrencyWithItsMinorUnits() {
        let totals = CurrencyTotals([Money(amount: 5000, currency: "JPY"), Money(amount: decimal("1234.5"), currency: "EUR")])
        #expect(totals.formatted == ["1,234.50 EUR", "5,000 JPY"])
    }

    @Test func addingTwoTotalsKeepsTheCurrenciesApart() {
        let a = CurrencyTotals([Money(amount: 1, currency: "EUR")])
        let b = CurrencyTotals([Money(amount: 2, currency: "EUR"), Money(amount: 3, currency: "USD")])
        let sum = a + b
        #expect(sum["EUR"] == 3)
        #expect(sum["USD"] == 3)
        #expect(sum.currencies == ["EUR", "USD"])
    }

    @Test func totalsEncodeAsOneEntryPerCurrencyWithExactAmounts() throws {
        let totals = CurrencyTotals([Money(amount: decimal("0.1"), currency: "EUR"), Money(amount: decimal("0.2"), currency: "EUR")])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(totals), as: UTF8.self)
        #expect(json == #"[{"amount":"0.30","currency":"EUR","formatted":"0.30 EUR"}]"#)
        #expect(try JSONDecoder().decode(CurrencyTotals.self, from: Data(json.utf8)) == totals)
    }
}
