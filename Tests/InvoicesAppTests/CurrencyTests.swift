import Foundation
import Testing
@testable import InvoicesApp

@Suite struct CurrencyTests {
    @Test func theShippedListGivesEachCurrencyItsISOMinorUnits() {
        #expect(Currency.named("EUR")?.minorUnits == 2)
        #expect(Currency.named("USD")?.minorUnits == 2)
        #expect(Currency.named("JPY")?.minorUnits == 0)
        #expect(Currency.named("KWD")?.minorUnits == 3)
        #expect(Currency.named("CLF")?.minorUnits == 4)
        #expect(Currency.named("XAU")?.minorUnits == nil)
        #expect(Currency.named("XAU") != nil)
    }

    @Test func theListIsTheFullActiveListSortedWithoutDuplicates() {
        let codes = Currency.all.map(\.code)
        #expect(codes.count > 170)
        #expect(codes == codes.sorted())
        #expect(Set(codes).count == codes.count)
        #expect(codes.allSatisfy { $0.count == 3 && $0.allSatisfy(\.isUppercase) })
        #expect(!codes.contains("HRK"))
        #expect(Currency.invoiceable.allSatisfy { $0.minorUnits != nil })
    }

    @Test func unknownOrLowerCaseCodesAreNotFound() {
        #expect(Currency.named("EURO") == nil)
        #expect(Currency.named("eur") == nil)
    }

    @Test func decimalPlacesIgnoreTrailingZeros() {
        #expect(decimal("1.50").decimalPlaces == 1)
        #expect(decimal("1200.00").decimalPlaces == 0)
        #expect(decimal("0.125").decimalPlaces == 3)
        #expect(decimal("100").decimalPlaces == 0)
        #expect(Decimal(0).decimalPlaces == 0)
    }

    @Test func amountsAreFormattedWithTheCurrencysMinorUnits() throws {
        let eur = try #require(Currency.named("EUR"))
        let jpy = try #require(Currency.named("JPY"))
        let kwd = try #require(Currency.named("KWD"))
        #expect(eur.format(decimal("1234.5")) == "1,234.50 EUR")
        #expect(eur.format(decimal("0.05")) == "0.05 EUR")
        #expect(eur.format(decimal("1234567.891")) == "1,234,567.89 EUR")
        #expect(jpy.format(decimal("150000")) == "150,000 JPY")
        #expect(kwd.format(decimal("12.5")) == "12.500 KWD")
        #expect(eur.plain(decimal("1234.5")) == "1234.50")
        #expect(eur.format(decimal("-3.1")) == "-3.10 EUR")
    }

    @Test func anAmountFitsACurrencyWhenItHasNoMoreDecimalsThanItsMinorUnits() throws {
        let jpy = try #require(Currency.named("JPY"))
        #expect(jpy.allows(decimal("1200")))
        #expect(jpy.allows(decimal("1200.00")))
        #expect(!jpy.allows(decimal("1200.5")))
        #expect(!(try #require(Currency.named("XAU"))).allows(1))
    }
}
