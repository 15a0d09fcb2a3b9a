import Foundation

/// Sums of amounts, one per currency. Amounts in different currencies are never added
/// together: there is no API that returns a single figure for several currencies.
///
/// ```swift
/// var totals = CurrencyTotals()
/// totals.add(Money(amount: 100, currency: "EUR"))
/// totals.add(Money(amount: 5000, currency: "JPY"))
/// totals["EUR"]            // 100
/// totals.formatted         // ["100.00 EUR", "5,000 JPY"]
/// ```
///
/// `Codable` as an array of ``Money`` sorted by currency code.
public struct CurrencyTotals: Sendable, Hashable, Codable, Sequence {
    private var sums: [String: Decimal] = [:]

    public init() {}

    /// Totals of these amounts.
    public init(_ amounts: some Sequence<Money>) {
        for money in amounts { add(money) }
    }

    /// Adds an amount to its currency's total.
    public mutating func add(_ money: Money) {
        sums[money.currency, default: 0] += money.amount
    }

    /// The total in `currency`; 0 when nothing was added in it.
    public subscript(currency: String) -> Decimal { sums[currency] ?? 0 }

    /// The currencies that have a total, sorted by code.
    public var currencies: [String] { sums.keys.sorted() }

    /// One ``Money`` per currency, sorted by code.
    public var totals: [Money] { currencies.map { Money(amount: sums[$0] ?? 0, currency: $0) } }

    /// Each total formatted with its currency's minor units, sorted by code.
    public var formatted: [String] { totals.map(\.formatted) }

    /// Whether no amount was added.
    public var isEmpty: Bool { sums.isEmpty }

    public func makeIterator() -> IndexingIterator<[Money]> { totals.makeIterator() }

    /// Per-currency sums of both.
    public static func + (lhs: CurrencyTotals, rhs: CurrencyTotals) -> CurrencyTotals {
        var result = lhs
        for (currency, amount) in rhs.sums { result.sums[currency, default: 0] += amount }
        return result
    }

    public init(from decoder: Decoder) throws {
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd { add(try container.decode(Money.self)) }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.unkeyedContainer()
        for money in totals { try container.encode(money) }
    }
}
