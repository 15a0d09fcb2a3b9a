import Foundation

/// The kinds of value an attribute can hold.
public enum AttributeType: String, Sendable, Codable, CaseIterable {
    case string, int, int64, double, bool, date, decimal, uuid, data

    /// The SQLite column type the store declares for the attribute.
    var sqlType: String {
        switch self {
        case .string, .decimal, .uuid: return "TEXT"
        case .int, .int64, .bool: return "INTEGER"
        case .double, .date: return "REAL"
        case .data: return "BLOB"
        }
    }
}

/// A Swift type that can be the type of an `@Attribute`.
///
/// ObjectGraph provides the conformances for `String`, `Int`, `Int64`, `Double`, `Bool`,
/// `Date`, `Decimal`, `UUID`, `Data` and `Optional` of each.
public protocol AttributeValue {
    /// The attribute type the model records for this Swift type.
    static var attributeType: AttributeType { get }
    /// Whether `nil` is a valid value.
    static var isOptional: Bool { get }
    /// The value a new object gets when the declaration gives none.
    static var defaultAttributeValue: Self { get }
    /// Converts a stored value; nil when the stored value has another type.
    init?(storedValue: StoredValueBox)
    /// The value as stored.
    var storedValueBox: StoredValueBox { get }
}

/// An opaque carrier of a stored value: lets `AttributeValue` conformances exist without
/// making ObjectGraph's internal representation public.
public struct StoredValueBox: Sendable, Hashable {
    let value: StoredValue
    init(_ value: StoredValue) { self.value = value }

    // For `Optional`'s inlinable conformance, which the module declaring an attribute's type
    // specializes (no generic metadata look-up per read).
    @usableFromInline var isNull: Bool { value.isNull }
    @usableFromInline static var null: StoredValueBox { StoredValueBox(.null) }
}

extension AttributeValue {
    public static var isOptional: Bool { false }
}

extension String: AttributeValue {
    public static var attributeType: AttributeType { .string }
    public static var defaultAttributeValue: String { "" }
    public init?(storedValue: StoredValueBox) { guard case .string(let v) = storedValue.value else { return nil }; self = v }
    public var storedValueBox: StoredValueBox { StoredValueBox(.string(self)) }
}

extension Int: AttributeValue {
    public static var attributeType: AttributeType { .int }
    public static var defaultAttributeValue: Int { 0 }
    public init?(storedValue: StoredValueBox) { guard case .int(let v) = storedValue.value else { return nil }; self = Int(truncatingIfNeeded: v) }
    public var storedValueBox: StoredValueBox { StoredValueBox(.int(Int64(self))) }
}

extension Int64: AttributeValue {
    public static var attributeType: AttributeType { .int64 }
    public static var defaultAttributeValue: Int64 { 0 }
    public init?(storedValue: StoredValueBox) { guard case .int(let v) = storedValue.value else { return nil }; self = v }
    public var storedValueBox: StoredValueBox { StoredValueBox(.int(self)) }
}

extension Double: AttributeValue {
    public static var attributeType: AttributeType { .double }
    public static var defaultAttributeValue: Double { 0 }
    public init?(storedValue: StoredValueBox) { guard case .double(let v) = storedValue.value else { return nil }; self = v }
    public var storedValueBox: StoredValueBox { StoredValueBox(.double(self)) }
}

extension Bool: AttributeValue {
    public static var attributeType: AttributeType { .bool }
    public static var defaultAttributeValue: Bool { false }
    public init?(storedValue: StoredValueBox) { guard case .bool(let v) = storedValue.value else { return nil }; self = v }
    public var storedValueBox: StoredValueBox { StoredValueBox(.bool(self)) }
}

extension Date: AttributeValue {
    public static var attributeType: AttributeType { .date }
    public static var defaultAttributeValue: Date { Date(timeIntervalSince1970: 0) }
    public init?(storedValue: StoredValueBox) { guard case .date(let v) = storedValue.value else { return nil }; self = v }
    public var storedValueBox: StoredValueBox { StoredValueBox(.date(self)) }
}

extension Decimal: AttributeValue {
    public static var attributeType: AttributeType { .decimal }
    public static var defaultAttributeValue: Decimal { 0 }
    public init?(storedValue: StoredValueBox) { guard case .decimal(let v) = storedValue.value else { return nil }; self = v }
    public var storedValueBox: StoredValueBox { StoredValueBox(.decimal(self)) }
}

extension UUID: AttributeValue {
    public static var attributeType: AttributeType { .uuid }
    public static var defaultAttributeValue: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    public init?(storedValue: StoredValueBox) { guard case .uuid(let v) = storedValue.value else { return nil }; self = v }
    public var storedValueBox: StoredValueBox { StoredValueBox(.uuid(self)) }
}

extension Data: AttributeValue {
    public static var attributeType: AttributeType { .data }
    public static var defaultAttributeValue: Data { Data() }
    public init?(storedValue: StoredValueBox) { guard case .data(let v) = storedValue.value else { return nil }; self = v }
    public var storedValueBox: StoredValueBox { StoredValueBox(.data(self)) }
}

extension Optional: AttributeValue where Wrapped: AttributeValue {
    public static var attributeType: AttributeType { Wrapped.attributeType }
    public static var isOptional: Bool { true }
    public static var defaultAttributeValue: Wrapped? { nil }
    @inlinable
    public init?(storedValue: StoredValueBox) {
        if storedValue.isNull { self = .none; return }
        guard let v = Wrapped(storedValue: storedValue) else { return nil }
        self = .some(v)
    }
    @inlinable
    public var storedValueBox: StoredValueBox {
        switch self {
        case .none: return .null
        case .some(let v): return v.storedValueBox
        }
    }
}

extension StoredValue {
    /// Converts a dynamically typed value (from `setValue(_:forKey:)`) to the stored form of `type`.
    /// Returns nil when the value's type does not fit; integers widen and narrow where exact.
    init?(any value: Any?, as type: AttributeType) {
        guard let value else { self = .null; return }
        switch (type, value) {
        case (.string, let v as String): self = .string(v)
        case (.int, let v as Int): self = .int(Int64(v))
        case (.int, let v as Int64): self = .int(v)
        case (.int64, let v as Int64): self = .int(v)
        case (.int64, let v as Int): self = .int(Int64(v))
        case (.double, let v as Double): self = .double(v)
        case (.double, let v as Int): self = .double(Double(v))
        case (.bool, let v as Bool): self = .bool(v)
        case (.date, let v as Date): self = .date(v)
        case (.decimal, let v as Decimal): self = .decimal(v)
        case (.decimal, let v as Int): self = .decimal(Decimal(v))
        case (.uuid, let v as UUID): self = .uuid(v)
        case (.data, let v as Data): self = .data(v)
        default: return nil
        }
    }
}

/// Enumerations with a raw value are stored as their raw value:
/// `enum Status: String, AttributeValue, CaseIterable { case draft, sent }`.
extension AttributeValue where Self: RawRepresentable, RawValue: AttributeValue {
    public static var attributeType: AttributeType { RawValue.attributeType }
    // Inlinable: specialized in the module that declares the enumeration (no generic
    // metadata look-up on every read).
    @inlinable
    public init?(storedValue: StoredValueBox) {
        guard let raw = RawValue(storedValue: storedValue) else { return nil }
        self.init(rawValue: raw)
    }
    @inlinable
    public var storedValueBox: StoredValueBox { rawValue.storedValueBox }
}

extension AttributeValue where Self: RawRepresentable & CaseIterable, RawValue: AttributeValue {
    /// The first case, for enumerations declared without a default.
    public static var defaultAttributeValue: Self {
        guard let first = allCases.first else { preconditionFailure("\(Self.self) has no cases") }
        return first
    }
}
