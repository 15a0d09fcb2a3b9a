import Foundation

/// An ISO 4217 currency: its code, name and minor units (how many decimals its amounts have).
///
/// The project ships the active list (``Currency/all``); ``Currency/named(_:)`` looks a code up.
///
/// ```swift
/// Currency.named("JPY")?.minorUnits   // 0
/// Currency.named("EUR")?.format(1234.5) // "1,234.50 EUR"
/// ```
public struct Currency: Sendable, Hashable, Codable, Identifiable {
    /// The three-letter code, upper case ("EUR").
    public let code: String
    /// The name ISO 4217 gives ("Euro").
    public let name: String
    /// Digits after the decimal point (2 for EUR, 0 for JPY, 3 for KWD); nil where ISO 4217
    /// says "N.A." (gold, SDR, ...): such codes cannot be used for invoices.
    public let minorUnits: Int?

    public var id: String { code }

    public init(code: String, name: String, minorUnits: Int?) {
        self.code = code
        self.name = name
        self.minorUnits = minorUnits
    }

    /// The currency with this code (exactly, upper case), nil when the shipped list has none.
    public static func named(_ code: String) -> Currency? { byCode[code] }

    private static let byCode: [String: Currency] = Dictionary(uniqueKeysWithValues: all.map { ($0.code, $0) })

    /// The currencies an invoice may use: those with minor units, sorted by code.
    public static let invoiceable: [Currency] = all.filter { $0.minorUnits != nil }

    /// Whether `amount` has at most ``minorUnits`` decimals (always false without minor units).
    public func allows(_ amount: Decimal) -> Bool {
        guard let minorUnits else { return false }
        return amount.decimalPlaces <= minorUnits
    }

    /// `1234.5` → `"1,234.50 EUR"`: grouped thousands, exactly the minor units' decimals
    /// (rounded half-even if the amount has more), and the code. Locale-independent, so pages,
    /// exports and tests agree.
    public func format(_ amount: Decimal) -> String {
        MoneyFormat.grouped(amount, decimals: minorUnits ?? 0) + " " + code
    }

    /// `amount` rounded half away from zero to the minor units (`2.345` EUR → `2.35`,
    /// `-2.345` → `-2.35`, `0.5` JPY → `1`): how each invoice line's net and tax are rounded.
    public func rounded(_ amount: Decimal) -> Decimal {
        var value = amount, result = Decimal()
        // .plain rounds the magnitude half up, so half away from zero for either sign.
        NSDecimalRound(&result, &value, minorUnits ?? 0, .plain)
        return result
    }

    /// `1234.5` → `"1234.50"`: no grouping, the minor units' decimals. For CSV and JSON.
    public func plain(_ amount: Decimal) -> String {
        MoneyFormat.plain(amount, decimals: minorUnits ?? 0)
    }
}

extension Decimal {
    /// The number of digits after the decimal point, trailing zeros not counted
    /// (`1.50` → 1, `100` → 0).
    public var decimalPlaces: Int {
        if isZero || !isFinite { return 0 }
        var places = Swift.max(0, -Int(exponent))
        var value = self
        // Decimal keeps the digits it was given ("1.50" has exponent -2): find the fewest
        // decimals that still represent the value exactly.
        while places > 0 {
            var rounded = Decimal()
            NSDecimalRound(&rounded, &value, places - 1, .plain)
            if rounded != self { break }
            places -= 1
        }
        return places
    }
}

/// Decimal to text without Foundation's locale-dependent formatters.
enum MoneyFormat {
    /// `-1234.5`, 2 → `"-1234.50"`.
    static func plain(_ amount: Decimal, decimals: Int) -> String {
        let (negative, integer, fraction) = parts(amount, decimals: decimals)
        return (negative ? "-" : "") + integer + (decimals > 0 ? "." + fraction : "")
    }

    /// `-1234.5`, 2 → `"-1,234.50"`.
    static func grouped(_ amount: Decimal, decimals: Int) -> String {
        let (negative, integer, fraction) = parts(amount, decimals: decimals)
        var groupedInteger = ""
        for (i, ch) in integer.enumerated() {
            if i > 0 && (integer.count - i) % 3 == 0 { groupedInteger.append(",") }
            groupedInteger.append(ch)
        }
        return (negative ? "-" : "") + groupedInteger + (decimals > 0 ? "." + fraction : "")
    }

    /// The sign, the integer digits and exactly `decimals` fraction digits of `amount`
    /// rounded half-even.
    private static func parts(_ amount: Decimal, decimals: Int) -> (Bool, String, String) {
        var value = amount
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, decimals, .bankers)
        let negative = rounded < 0
        // Scale to an integer number of minor units: its description has no point or exponent.
        var units = (negative ? -rounded : rounded)
        for _ in 0..<decimals { units *= 10 }
        var digits = "\(units)"
        if let dot = digits.firstIndex(of: ".") { digits = String(digits[..<dot]) }
        if digits.count <= decimals {
            digits = String(repeating: "0", count: decimals - digits.count + 1) + digits
        }
        let split = digits.index(digits.endIndex, offsetBy: -decimals)
        return (negative && !units.isZero, String(digits[..<split]), String(digits[split...]))
    }
}
