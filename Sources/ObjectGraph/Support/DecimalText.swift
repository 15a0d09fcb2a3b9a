import Foundation

/// Writes and reads the text ObjectGraph stores a `Decimal` as (its `description`:
/// `-123.45`, `5000`) without Foundation's slow paths, which a save or a fetch of a Decimal
/// attribute otherwise pays per row (on Linux, `description` costs about a microsecond and
/// `Decimal(string:)` half of one).
///
/// ``text(of:)`` makes `description`'s text from the significand and the exponent;
/// ``parse(_:)`` reads digits into an integer and counts decimals. Each answers only where it
/// is sure (up to 18 significant digits, no exponent form) and returns nil otherwise, and
/// the caller falls back on Foundation. Where they answer, they agree with Foundation
/// exactly: the same text, the same `Decimal` (DecimalTextTests).
enum DecimalText {
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Decimal? {
        var i = 0
        let negative = !bytes.isEmpty && bytes[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        var significand: UInt64 = 0
        var digits = 0, exponent = 0
        var sawDot = false, sawDigit = false
        while i < bytes.count {
            let byte = bytes[i]
            i += 1
            if byte == UInt8(ascii: ".") {
                if sawDot || !sawDigit { return nil }
                sawDot = true
                continue
            }
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            sawDigit = true
            if sawDot { exponent -= 1 }
            if significand == 0 && byte == UInt8(ascii: "0") { continue }
            guard digits < 18 else { return nil }
            significand = significand * 10 + UInt64(byte - UInt8(ascii: "0"))
            digits += 1
        }
        guard sawDigit, bytes.last != UInt8(ascii: "."), exponent >= -64 else { return nil }
        if significand == 0 { return exponent == 0 ? Decimal() : nil }
        while significand % 10 == 0 {
            significand /= 10
            exponent += 1
        }
        return Decimal(sign: negative ? .minus : .plus, exponent: exponent, significand: Decimal(significand))
    }

    /// `value.description`, made from its significand and exponent; nil for NaN and for
    /// values beyond 18 digits or far exponents (the caller then asks `description`).
    static func text(of value: Decimal) -> String? {
        guard !value.isNaN else { return nil }
        let significand = value.significand
        let magnitude = (significand as NSDecimalNumber).uint64Value
        let exponent = value.exponent
        guard magnitude < 1_000_000_000_000_000_000, exponent > -64 && exponent < 64,
              Decimal(magnitude) == significand else { return nil }
        if magnitude == 0 { return "0" }
        var digits = String(magnitude)
        if exponent >= 0 {
            digits += String(repeating: "0", count: exponent)
        } else {
            let scale = -exponent
            let count = digits.utf8.count
            if count <= scale { digits = String(repeating: "0", count: scale - count + 1) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -scale))
        }
        return value.sign == .minus ? "-" + digits : digits
    }
}
