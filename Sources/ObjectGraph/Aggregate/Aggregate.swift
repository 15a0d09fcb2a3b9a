import Foundation

/// A value computed over the objects of a group: how many there are, or the sum, smallest,
/// largest or average value of an attribute. `Value` is the type the row holds.
///
/// ```swift
/// .count                      // Aggregate<Invoice, Int>
/// .sum(\.amount)              // Aggregate<Invoice, Decimal>: exact
/// .max(\.issueDate)           // Aggregate<Invoice, Date?>
/// .min(\Invoice.client?.name) // through a to-one relationship: Aggregate<Invoice, String?>
/// ```
///
/// A key path of more than one component (through a relationship) needs its root spelled
/// out inside `AggregateRequest(…, computing:)`: Swift 6.3 cannot infer it in a parameter
/// pack, and stops with "failed to produce diagnostic for expression". Group keys
/// (`groupBy: \.client?.country`) and aggregates declared beforehand
/// (`let first: Aggregate<Invoice, String?> = .min(\.client?.name)`) need no root.
///
/// Over no objects, a count and a sum are 0 (as `reduce(0, +)` is); `min`, `max` and
/// `average` are nil, since there is no value to give. Nil values of an optional attribute
/// are left out of sums, extremes, averages and `count(_:)`.
///
/// Decimals are added and compared exactly, never through a binary double (the stored text
/// is read into 128-bit integers); an average divides the exact sum once, in `Decimal`
/// arithmetic. An integer sum (or the sum under an integer average) past 64 bits throws
/// ``AggregateError/overflow(_:)``. Doubles are added in the order rows are read, like
/// SQLite's `SUM`. Strings compare as Swift's `<` does; an enumeration by its raw value.
public struct Aggregate<Root: ManagedObject, Value> {
    let term: AggregateTerm
    /// Turns the accumulated value (the stored form of `Value`, or `.null`) into `Value`.
    let finish: (StoredValue) throws -> Value
}

/// What an aggregate computes, without its result type.
struct AggregateTerm {
    enum Function: String, Sendable {
        case count, countValues = "count of values", sum, minimum = "min", maximum = "max", average
    }
    let function: Function
    /// The attribute; nil for `count`.
    let keyPath: AnyKeyPath?
}

extension Aggregate {
    /// How many objects the group has.
    public static var count: Aggregate<Root, Int> {
        Aggregate<Root, Int>(term: AggregateTerm(function: .count, keyPath: nil), finish: decoded)
    }

    /// How many objects of the group have a value (not nil) for the attribute.
    public static func count<V: AttributeValue>(_ keyPath: KeyPath<Root, V>) -> Aggregate<Root, Int> {
        Aggregate<Root, Int>(term: AggregateTerm(function: .countValues, keyPath: keyPath), finish: decoded)
    }

    /// The sum of a numeric attribute (`Int`, `Int64`, `Double`, `Decimal`); 0 for no objects.
    public static func sum<V: AttributeValue & AdditiveArithmetic>(_ keyPath: KeyPath<Root, V>) -> Aggregate<Root, V> {
        Aggregate<Root, V>(term: AggregateTerm(function: .sum, keyPath: keyPath), finish: decoded)
    }

    /// The sum of an optional numeric attribute, nil values left out; 0 for no values.
    public static func sum<V: AttributeValue & AdditiveArithmetic>(_ keyPath: KeyPath<Root, V?>) -> Aggregate<Root, V> {
        Aggregate<Root, V>(term: AggregateTerm(function: .sum, keyPath: keyPath), finish: decoded)
    }

    /// The smallest value of a number, decimal, date or string attribute; nil for no values.
    public static func min<V: AttributeValue & Comparable>(_ keyPath: KeyPath<Root, V>) -> Aggregate<Root, V?> {
        Aggregate<Root, V?>(term: AggregateTerm(function: .minimum, keyPath: keyPath), finish: decodedUnlessNull)
    }

    /// The smallest value of an optional attribute, nil values left out; nil for no values.
    public static func min<V: AttributeValue & Comparable>(_ keyPath: KeyPath<Root, V?>) -> Aggregate<Root, V?> {
        Aggregate<Root, V?>(term: AggregateTerm(function: .minimum, keyPath: keyPath), finish: decodedUnlessNull)
    }

    /// The largest value of a number, decimal, date or string attribute; nil for no values.
    public static func max<V: AttributeValue & Comparable>(_ keyPath: KeyPath<Root, V>) -> Aggregate<Root, V?> {
        Aggregate<Root, V?>(term: AggregateTerm(function: .maximum, keyPath: keyPath), finish: decodedUnlessNull)
    }

    /// The largest value of an optional attribute, nil values left out; nil for no values.
    public static func max<V: AttributeValue & Comparable>(_ keyPath: KeyPath<Root, V?>) -> Aggregate<Root, V?> {
        Aggregate<Root, V?>(term: AggregateTerm(function: .maximum, keyPath: keyPath), finish: decodedUnlessNull)
    }

    /// The average of a Decimal attribute: its exact sum divided by the count, in `Decimal`
    /// arithmetic (38 significant digits); nil for no values.
    public static func average(_ keyPath: KeyPath<Root, Decimal>) -> Aggregate<Root, Decimal?> {
        Aggregate<Root, Decimal?>(term: AggregateTerm(function: .average, keyPath: keyPath), finish: decodedUnlessNull)
    }

    /// The average of an optional Decimal attribute, nil values left out; nil for no values.
    public static func average(_ keyPath: KeyPath<Root, Decimal?>) -> Aggregate<Root, Decimal?> {
        Aggregate<Root, Decimal?>(term: AggregateTerm(function: .average, keyPath: keyPath), finish: decodedUnlessNull)
    }

    /// The average of an integer attribute, as a `Double`, from its exact sum; nil for no values.
    public static func average<V: AttributeValue & BinaryInteger>(_ keyPath: KeyPath<Root, V>) -> Aggregate<Root, Double?> {
        Aggregate<Root, Double?>(term: AggregateTerm(function: .average, keyPath: keyPath), finish: decodedUnlessNull)
    }

    /// The average of an optional integer attribute, nil values left out; nil for no values.
    public static func average<V: AttributeValue & BinaryInteger>(_ keyPath: KeyPath<Root, V?>) -> Aggregate<Root, Double?> {
        Aggregate<Root, Double?>(term: AggregateTerm(function: .average, keyPath: keyPath), finish: decodedUnlessNull)
    }

    /// The average of a `Double` attribute; nil for no values.
    public static func average(_ keyPath: KeyPath<Root, Double>) -> Aggregate<Root, Double?> {
        Aggregate<Root, Double?>(term: AggregateTerm(function: .average, keyPath: keyPath), finish: decodedUnlessNull)
    }

    /// The average of an optional `Double` attribute, nil values left out; nil for no values.
    public static func average(_ keyPath: KeyPath<Root, Double?>) -> Aggregate<Root, Double?> {
        Aggregate<Root, Double?>(term: AggregateTerm(function: .average, keyPath: keyPath), finish: decodedUnlessNull)
    }
}

/// The value of a non-optional result.
private func decoded<V: AttributeValue>(_ value: StoredValue) throws -> V {
    guard let result = V(storedValue: StoredValueBox(value)) else {
        throw AggregateError.unrepresentableValue(value.displayString, as: "\(V.self)")
    }
    return result
}

/// The value of an optional result: nil when nothing was aggregated.
private func decodedUnlessNull<V: AttributeValue>(_ value: StoredValue) throws -> V? {
    if value.isNull { return nil }
    return try decoded(value) as V
}
