import Foundation

/// A property's value as persistent history recorded it, in the Swift type the model gave the
/// property when the value was written: decimals exact, dates, UUIDs and data whole, an
/// enumeration as its raw value, a to-one relationship as its destination's ``ObjectID``.
///
/// ```swift
/// if case .decimal(let amount)? = change.values["amount"]?.new { total += amount }
/// let status = change.values["status"]?.new(as: InvoiceStatus.self)   // the raw value made a case again
/// ```
///
/// Values carry their type in the history itself, so a property since removed from the model
/// still reads back as it was written.
public enum HistoryValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case date(Date)
    case decimal(Decimal)
    case uuid(UUID)
    case data(Data)
    /// A to-one relationship's destination.
    case reference(ObjectID)

    init?(_ stored: StoredValue) {
        switch stored {
        case .null: self = .null
        case .bool(let v): self = .bool(v)
        case .int(let v): self = .integer(v)
        case .double(let v): self = .double(v)
        case .string(let v): self = .string(v)
        case .date(let v): self = .date(v)
        case .decimal(let v): self = .decimal(v)
        case .uuid(let v): self = .uuid(v)
        case .data(let v): self = .data(v)
        case .reference(let id): self = .reference(id)
        case .references, .unloaded: return nil
        }
    }

    var storedValue: StoredValue {
        switch self {
        case .null: return .null
        case .bool(let v): return .bool(v)
        case .integer(let v): return .int(v)
        case .double(let v): return .double(v)
        case .string(let v): return .string(v)
        case .date(let v): return .date(v)
        case .decimal(let v): return .decimal(v)
        case .uuid(let v): return .uuid(v)
        case .data(let v): return .data(v)
        case .reference(let id): return .reference(id)
        }
    }

    /// The value as the attribute's Swift type: `value(as: Decimal.self)`,
    /// `value(as: InvoiceStatus.self)` for an enumeration stored as its raw value,
    /// `value(as: String?.self)` to read `.null` as `nil`. Nil when the value is not a `V`.
    public func value<V: AttributeValue>(as type: V.Type = V.self) -> V? {
        V(storedValue: StoredValueBox(storedValue))
    }

    /// The destination of a to-one relationship; nil for other values and for no destination.
    public var objectID: ObjectID? {
        if case .reference(let id) = self { return id } else { return nil }
    }

    /// Plain text, as ``InspectedValue`` writes it; data by its size.
    public var description: String {
        if case .data(let v) = self { return "\(v.count) bytes" }
        return InspectedValue(storedValue).description
    }
}

/// A property's values before and after one change of persistent history.
///
/// ```swift
/// for (name, value) in change.values.sorted(by: { $0.key < $1.key }) {
///     print(name, value.old?.description ?? "-", "→", value.new?.description ?? "-")
/// }
/// let paid = change.values["status"]?.new(as: InvoiceStatus.self) == .paid
/// ```
public struct HistoryValueChange: Sendable, Hashable {
    /// The value before the change; nil for an insert (there was no object before).
    public let old: HistoryValue?
    /// The value after the change; nil for a delete.
    public let new: HistoryValue?

    /// A pair of values, as history reads them (for comparisons in tests and previews).
    public init(old: HistoryValue?, new: HistoryValue?) {
        self.old = old
        self.new = new
    }

    /// The old value as the attribute's Swift type (see ``HistoryValue/value(as:)``).
    public func old<V: AttributeValue>(as type: V.Type = V.self) -> V? { old?.value(as: type) }

    /// The new value as the attribute's Swift type (see ``HistoryValue/value(as:)``).
    public func new<V: AttributeValue>(as type: V.Type = V.self) -> V? { new?.value(as: type) }
}
