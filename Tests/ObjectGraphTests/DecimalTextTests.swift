import Foundation
import Testing
@testable import ObjectGraph

@Suite struct DecimalTextTests {
    private func parse(_ text: String) -> Decimal? {
        Array(text.utf8).withUnsafeBufferPointer { DecimalText.parse($0) }
    }

    /// The same Decimal as Foundation's parser: value, exponent, significand, text and hash.
    private func expectSameAsFoundation(_ text: String) {
        guard let fast = parse(text) else { return }
        let foundation = Decimal(string: text)
        #expect(foundation == fast, "\(text)")
        #expect(foundation?.exponent == fast.exponent && foundation?.significand == fast.significand, "\(text)")
        #expect(foundation?.description == fast.description && foundation?.hashValue == fast.hashValue, "\(text)")
    }

    @Test func storedAmountsReadAsFoundationReadsThem() {
        for text in ["0", "-0", "1", "10", "100", "1.5", "1.50", "-12.34", "0.001", "-0.10", "5000000.00",
                     "123456789012345678", "00012", "12345678901234567.8"] {
            expectSameAsFoundation(text)
            #expect(parse(text) != nil, "\(text)")
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let significand = UInt64.random(in: 0...(UInt64(1) << UInt64.random(in: 1...59, using: &generator)), using: &generator)
            let value = Decimal(sign: Bool.random(using: &generator) ? .minus : .plus,
                                exponent: Int.random(in: -8...6, using: &generator), significand: Decimal(significand))
            expectSameAsFoundation(value.description)
            expectSameAsFoundation(StoredValue.decimalText(value))
        }
    }

    @Test func otherFormsAreLeftToFoundation() {
        for text in ["", "-", ".", "1.", ".5", "1.2.3", "1e5", "+1", " 1", "1 ", "0.00", "1234567890123456789",
                     "12a", "٣"] {
            #expect(parse(text) == nil, "\(text)")
        }
    }

    @Test func storedTextIsFoundationsDescription() {
        var generator = SystemRandomNumberGenerator()
        var values: [Decimal] = [0, Decimal(string: "0.00") ?? 0, Decimal(sign: .minus, exponent: 0, significand: 0),
                                 Decimal(sign: .plus, exponent: -2, significand: 1500), Decimal(string: "1E+20") ?? 0,
                                 Decimal(string: "0.001") ?? 0, Decimal(string: "-12.34") ?? 0]
        for _ in 0..<20_000 {
            let significand = UInt64.random(in: 0...(UInt64(1) << UInt64.random(in: 1...63, using: &generator)), using: &generator)
            values.append(Decimal(sign: Bool.random(using: &generator) ? .minus : .plus,
                                  exponent: Int.random(in: -20...20, using: &generator), significand: Decimal(significand)))
        }
        for value in values {
            #expect(StoredValue.decimalText(value) == value.description, "\(value)")
        }
        #expect(DecimalText.text(of: Decimal(string: "-12.34") ?? 0) == "-12.34")
        #expect(DecimalText.text(of: Decimal.nan) == nil)
        #expect(DecimalText.text(of: Decimal(string: "123456789012345678901234") ?? 0) == nil)
    }
}
