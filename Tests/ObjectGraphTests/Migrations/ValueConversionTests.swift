import Foundation
import Testing
@testable import ObjectGraph

/// Which numeric values a lightweight stage converts: exactly, or not at all.
@Suite struct ValueConversionTests {
    static func convert(_ value: StoredValue, _ from: AttributeType, _ to: AttributeType) -> StoredValue? {
        ValueConversion.convert(value, from: from, to: to)
    }

    @Test func integersWidenToInt64AndDecimalAlways() {
        #expect(Self.convert(.int(Int64.max), .int, .int64) == .int(Int64.max))
        #expect(Self.convert(.int(-42), .int, .decimal) == .decimal(-42))
        #expect(Self.convert(.int(Int64.min), .int64, .decimal) == .decimal(Decimal(Int64.min)))
    }

    @Test func integersBecomeDoublesOnlyWhereDoublesHoldThemExactly() {
        #expect(Self.convert(.int(1 << 53), .int, .double) == .double(9_007_199_254_740_992))
        #expect(Self.convert(.int((1 << 53) + 1), .int, .double) == nil)
    }

    @Test func doublesBecomeTheDecimalOfTheirShortestRepresentation() {
        #expect(Self.convert(.double(0.1), .double, .decimal) == .decimal(Decimal(string: "0.1")!))
        #expect(Self.convert(.double(0.1 + 0.2), .double, .decimal) == .decimal(Decimal(string: "0.30000000000000004")!))
        #expect(Self.convert(.double(1e-5), .double, .decimal) == .decimal(Decimal(string: "0.00001")!))
        #expect(Self.convert(.double(-1234.5), .double, .decimal) == .decimal(Decimal(string: "-1234.5")!))
    }

    @Test func doublesBeyondDecimalsRangeOrNotNumbersDoNotConvert() {
        #expect(Self.convert(.double(1e300), .double, .decimal) == nil)
        #expect(Self.convert(.double(.nan), .double, .decimal) == nil)
        #expect(Self.convert(.double(.infinity), .double, .decimal) == nil)
    }

    @Test func fractionsDoNotBecomeIntegers() {
        #expect(Self.convert(.double(3), .double, .int) == .int(3))
        #expect(Self.convert(.double(3.5), .double, .int64) == nil)
        #expect(Self.convert(.decimal(Decimal(string: "12")!), .decimal, .int) == .int(12))
        #expect(Self.convert(.decimal(Decimal(string: "12.5")!), .decimal, .int) == nil)
        #expect(Self.convert(.decimal(Decimal(string: "1e30")!), .decimal, .int64) == nil)
    }

    @Test func decimalsBecomeDoublesOnlyWhenTheyComeBackUnchanged() {
        #expect(Self.convert(.decimal(Decimal(string: "0.1")!), .decimal, .double) == .double(0.1))
        #expect(Self.convert(.decimal(Decimal(string: "0.12345678901234567891")!), .decimal, .double) == nil)
    }

    @Test func nilStaysNilAndOtherTypesAreNotConverted() {
        #expect(Self.convert(.null, .int, .decimal) == .null)
        #expect(ValueConversion.converts(.int, to: .string) == false)
        #expect(ValueConversion.converts(.string, to: .string))
        #expect(ValueConversion.converts(.double, to: .int64))
    }
}
