import Foundation

/// Exact conversions between numeric attribute types, for lightweight stages.
///
/// A value converts only when nothing is lost: converting back gives the same value. A
/// `Double` becomes the `Decimal` of its shortest representation (the digits Swift prints:
/// `0.1` becomes `0.1`), which must fit `Decimal`'s range; a `Decimal` or a `Double` becomes
/// an integer only when it is whole and within range; an integer becomes a `Double` only
/// below 2⁵³ in magnitude.
enum ValueConversion {
    private static let numeric: Set<AttributeType> = [.int, .int64, .double, .decimal]

    /// Whether a lightweight stage converts attributes of type `from` to `to`.
    static func converts(_ from: AttributeType, to: AttributeType) -> Bool {
        from == to || (numeric.contains(from) && numeric.contains(to))
    }

    /// `value` (stored as `from`) as a value of type `to`; nil when it does not convert
    /// exactly.
    static func convert(_ value: StoredValue, from: AttributeType, to: AttributeType) -> StoredValue? {
        if case .null = value { return .null }
        switch (value, to) {
        case (.int, .int), (.int, .int64): return value
        case (.int(let v), .double): return exactDouble(v).map(StoredValue.double)
        case (.int(let v), .decimal): return .decimal(Decimal(v))
        case (.double(let v), .int), (.double(let v), .int64): return Int64(exactly: v).map(StoredValue.int)
        case (.double, .double): return value
        case (.double(let v), .decimal): return decimal(v).map(StoredValue.decimal)
        case (.decimal(let v), .int), (.decimal(let v), .int64): return integer(v).map(StoredValue.int)
        case (.decimal(let v), .double): return double(v).map(StoredValue.double)
        case (.decimal, .decimal): return value
        default: return nil
        }
    }

    private static func exactDouble(_ value: Int64) -> Double? {
        let double = Double(value)
        return Int64(exactly: double) == value ? double : nil
    }

    private static func decimal(_ value: Double) -> Decimal? {
        guard value.isFinite, let decimal = Decimal(string: "\(value)", locale: nil) else { return nil }
        return double(decimal) == value ? decimal : nil
    }

    private static func integer(_ value: Decimal) -> Int64? {
        guard value.isFinite, let integer = Int64("\(value)") else { return nil }
        return Decimal(integer) == value ? integer : nil
    }

    private static func double(_ value: Decimal) -> Double? {
        guard value.isFinite, let double = Double("\(value)"), double.isFinite else { return nil }
        return Decimal(string: "\(double)", locale: nil) == value ? double : nil
    }
}
