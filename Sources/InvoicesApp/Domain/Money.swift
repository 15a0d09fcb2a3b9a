import Foundation

/// An amount in a currency. `Codable` as `{"amount": "1234.50", "currency": "EUR"}`: the
/// amount is a string with the currency's minor units, so JSON readers never see it as a
/// binary floating-point number.
public struct Money: Sendable, Hashable, Codable, CustomStringConvertible {
    public let amount: Decimal
    /// The ISO 4217 code.
    public let currency: String

    /// The most digits an amount has before its decimal point (below one quadrillion).
    ///
    /// `Decimal` holds 38 significant digits and rounds silently past them. With at most 15
    /// integer digits and at most 4 decimals (the most any ISO 4217 currency has), an amount
    /// has 19 significant digits, so a total of up to 10^19 amounts in one currency
    /// (``CurrencyTotals``) is still exact.
    public static let maximumIntegerDigits = 15

    /// The largest amount: 15 nines, a point, and 4 nines.
    public static let largestAmount = Decimal(sign: .plus, exponent: maximumIntegerDigits, significand: 1)
        - Decimal(sign: .plus, exponent: -4, significand: 1)

    public init(amount: Decimal, currency: String) {
        self.amount = amount
        self.currency = currency
    }

    /// `"1,234.50 EUR"`, with the currency's minor units (the amount as is for a code the
    /// shipped list does not know).
    public var formatted: String {
        if let known = Currency.named(currency) { return known.format(amount) }
        return "\(amount) \(currency)"
    }

    /// `"1,234.50"`: as ``formatted`` without the code, for a table whose currency has a
    /// column of its own (the invoice list), so the code is not shown twice.
    public var formattedAmount: String {
        if let known = Currency.named(currency) { return MoneyFormat.grouped(amount, decimals: known.minorUnits ?? 0) }
        return "\(amount)"
    }

    /// `"1234.50"`: the amount with the currency's minor units, no grouping.
    public var plainAmount: String {
        if let known = Currency.named(currency) { return known.plain(amount) }
        return "\(amount)"
    }

    public var description: String { formatted }

    private enum CodingKeys: String, CodingKey { case amount, currency, formatted }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        currency = try container.decode(String.self, forKey: .currency)
        let text = try container.decode(String.self, forKey: .amount)
        guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
            throw DecodingError.dataCorruptedError(forKey: .amount, in: container,
                                                   debugDescription: "\(text) is not a decimal amount")
        }
        amount = value
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(plainAmount, forKey: .amount)
        try container.encode(currency, forKey: .currency)
        try container.encode(formatted, forKey: .formatted)
    }
}
