import Foundation

/// A decimal number as an integer significand and a count of decimal places, read straight
/// from the canonical text the store keeps Decimals in (`"-1234.5"` is -12345 at scale 1).
///
/// Why it exists: SQLite turns text into a binary double before `SUM`, `MIN` or `AVG` sees
/// it, so 0.1 + 0.2 drifts and `"999999999999999.9999"` reads as 1e15. `Decimal(string:)` is
/// exact but costs about a microsecond a row. Reading the digits into an `Int128` costs a
/// few nanoseconds, and adding or comparing two of them is exact. Numbers with more than 38
/// significant digits, or sums that outgrow an `Int128`, return nil from these operations:
/// the caller then falls back to `Decimal` arithmetic (see ``DecimalSum``).
struct ExactDecimal: Sendable, Equatable {
    /// The most decimal places a value may have (10^38 still fits an `Int128`).
    static let maximumScale = 38
    private static let powersOfTen: [Int128] = {
        var powers: [Int128] = [1]
        for _ in 0..<maximumScale { powers.append((powers.last ?? 1) * 10) }
        return powers
    }()

    var significand: Int128
    /// Decimal places: the value is `significand` × 10^-`scale`.
    var scale: Int

    static let zero = ExactDecimal(significand: 0, scale: 0)

    init(significand: Int128, scale: Int) {
        self.significand = significand
        self.scale = scale
    }

    /// Parses `-?digits(.digits)?`, the form `Decimal.description` writes; nil for anything
    /// else (an exponent, a sign `+`, more than 38 significant digits or decimal places).
    init?(utf8 text: UnsafeBufferPointer<UInt8>) {
        var index = 0
        var negative = false
        if text.first == UInt8(ascii: "-") { negative = true; index = 1 }
        var value: Int128 = 0
        var scale = -1
        var digits = 0
        var significantDigits = 0
        while index < text.count {
            let byte = text[index]
            index += 1
            if byte == UInt8(ascii: ".") {
                guard scale < 0 else { return nil }
                scale = 0
                continue
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            digits += 1
            if significantDigits > 0 || byte != UInt8(ascii: "0") { significantDigits += 1 }
            guard significantDigits <= Self.maximumScale else { return nil }
            value = value * 10 + Int128(byte - UInt8(ascii: "0"))
            if scale >= 0 { scale += 1 }
        }
        guard digits > 0, scale <= Self.maximumScale else { return nil }
        self.init(significand: negative ? -value : value, scale: max(scale, 0))
    }

    /// Parses a string as ``init(utf8:)`` does.
    init?(_ text: String) {
        var text = text
        guard let value = text.withUTF8({ ExactDecimal(utf8: $0) }) else { return nil }
        self = value
    }

    /// The sum, or nil when it does not fit.
    func adding(_ other: ExactDecimal) -> ExactDecimal? {
        guard let (a, b, scale) = Self.aligned(self, other) else { return nil }
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? nil : ExactDecimal(significand: sum, scale: scale)
    }

    /// Whether `self` is less than `other`; nil when the two cannot be brought to one scale.
    func isLess(than other: ExactDecimal) -> Bool? {
        guard let (a, b, _) = Self.aligned(self, other) else { return nil }
        return a < b
    }

    /// Both significands at the larger of the two scales.
    private static func aligned(_ x: ExactDecimal, _ y: ExactDecimal) -> (Int128, Int128, Int)? {
        if x.scale == y.scale { return (x.significand, y.significand, x.scale) }
        if x.scale < y.scale {
            guard let a = rescaled(x.significand, by: y.scale - x.scale) else { return nil }
            return (a, y.significand, y.scale)
        }
        guard let b = rescaled(y.significand, by: x.scale - y.scale) else { return nil }
        return (x.significand, b, x.scale)
    }

    private static func rescaled(_ value: Int128, by places: Int) -> Int128? {
        let (product, overflow) = value.multipliedReportingOverflow(by: powersOfTen[places])
        return overflow ? nil : product
    }

    /// The value as a `Decimal`, exactly (a `Decimal` holds a 128-bit significand).
    var decimal: Decimal {
        var digits = String(significand.magnitude)
        if scale > 0 {
            if digits.count <= scale { digits = String(repeating: "0", count: scale - digits.count + 1) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -scale))
        }
        let text = significand < 0 ? "-" + digits : digits
        // The text is digits with at most one point: Decimal always reads it.
        return Decimal(string: text) ?? Decimal.nan
    }
}

/// An exact running sum of Decimals: in an ``ExactDecimal`` while it fits, the rest in
/// `Decimal` arithmetic (which is exact up to 38 significant digits, and rounds past them).
struct DecimalSum: Sendable {
    private var exact = ExactDecimal.zero
    private var rest: Decimal = 0

    /// Adds a value given as canonical text; false (nothing added) when the text is not in
    /// canonical form, so the caller reads it as the store would.
    mutating func add(utf8 text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let value = ExactDecimal(utf8: text) else { return false }
        add(value)
        return true
    }

    mutating func add(_ value: ExactDecimal) {
        if let sum = exact.adding(value) { exact = sum } else { rest += value.decimal }
    }

    /// Adds a value.
    mutating func add(_ value: Decimal) {
        if let canonical = ExactDecimal(StoredValue.decimalText(value)) { add(canonical) } else { rest += value }
    }

    var total: Decimal { rest == 0 ? exact.decimal : exact.decimal + rest }
}
