import Foundation

/// Reads the text ObjectGraph stores a `Decimal` as (its `description`: `-123.45`, `5000`)
/// without Foundation's scanner: digits into an integer, a count of decimals, then
/// `Decimal(sign:exponent:significand:)`, about fifteen times faster than
/// `Decimal(string:)` (which a fetch of a Decimal attribute otherwise pays per row).
///
/// Returns nil for any text it does not take on (an exponent, more than 18 significant
/// digits, a zero written with decimals, anything but digits, one dot and a leading minus);
/// the caller then asks `Decimal(string:)`. Where it does answer, the `Decimal` is the one
/// `Decimal(string:)` makes, trailing zeros dropped the same way (DecimalTextTests checks).
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
}
