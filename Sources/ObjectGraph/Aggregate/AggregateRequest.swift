import Foundation

/// Values computed over the objects of an entity, in groups, in one query: counts, sums,
/// extremes and averages of attributes, for the objects a `#Predicate` selects, grouped by
/// attributes (of the entity, or reached through to-one relationships).
///
/// Each row is a tuple of the group keys and the aggregates, typed by the key paths and
/// aggregates given. The totals per currency of the sent invoices, in one query:
///
/// ```swift
/// let sent = InvoiceStatus.sent
/// let totals = try context.aggregate(AggregateRequest(
///     Invoice.self,
///     predicate: #Predicate { $0.status == sent },
///     groupBy: \.currency,
///     computing: .sum(\.amount), .count))
/// for (currency, total, count) in totals {   // (String, Decimal, Int)
///     print("\(currency): \(total) in \(count) invoices")
/// }
/// ```
///
/// Without group keys there is exactly one row, even when no object matches; with group
/// keys, one row per group that has objects, in ascending order of the keys (nil first).
/// A single value needs no tuple:
///
/// ```swift
/// let (earliest, latest) = try context.aggregate(
///     AggregateRequest(Invoice.self, computing: .min(\.issueDate), .max(\.issueDate)))[0]
/// let countries = try context.aggregate(
///     AggregateRequest(Invoice.self, groupBy: \.client?.country))   // [String?]
/// ```
///
/// Group by attributes of the entity, or of objects reached through to-one relationships
/// (`\.client?.country`); never through a to-many relationship, since one object would then
/// fall in several groups. Group keys of type `Decimal` group equal numbers together
/// (1.5 and 1.50 are one group). See ``Aggregate`` for the functions, their types and what
/// they give over no objects.
public struct AggregateRequest<Root: ManagedObject, Row> {
    /// Which objects; nil for all.
    public var predicate: Predicate<Root>?
    /// Whether unsaved inserts, updates and deletes of the context count (default true), as
    /// for fetches. A child context always sees its ancestors' unsaved changes.
    public var includesPendingChanges: Bool = true

    let groupKeys: [AnyKeyPath]
    let terms: [AggregateTerm]
    /// Makes a row from the group keys' stored values followed by the aggregates' results.
    let makeRow: ([StoredValue]) throws -> Row

    /// A request for the objects of `Root` that `predicate` selects, grouped by the values of
    /// `keys`, computing `aggregates` for each group.
    ///
    /// - Parameters:
    ///   - entity: The entity, when neither the predicate nor the key paths name it.
    ///   - predicate: Which objects; nil for all.
    ///   - keys: Key paths to attributes, or to attributes through to-one relationships.
    ///   - aggregates: What to compute for each group: `.count`, `.count(_:)`, `.sum(_:)`,
    ///     `.min(_:)`, `.max(_:)`, `.average(_:)` (see ``Aggregate``).
    public init<each Key: AttributeValue, each Value>(
        _ entity: Root.Type = Root.self,
        predicate: Predicate<Root>? = nil,
        groupBy keys: repeat KeyPath<Root, each Key>,
        computing aggregates: repeat Aggregate<Root, each Value>
    ) where Row == (repeat each Key, repeat each Value) {
        self.predicate = predicate
        var keyPaths: [AnyKeyPath] = []
        for key in repeat each keys { keyPaths.append(key) }
        var terms: [AggregateTerm] = []
        for aggregate in repeat each aggregates { terms.append(aggregate.term) }
        self.groupKeys = keyPaths
        self.terms = terms
        let finishers = (repeat (each aggregates).finish)
        self.makeRow = { values in
            var index = 0
            func key<K: AttributeValue>(_: K.Type) throws -> K {
                defer { index += 1 }
                guard let key = K(storedValue: StoredValueBox(values[index])) else {
                    throw AggregateError.unrepresentableValue(values[index].displayString, as: "\(K.self)")
                }
                return key
            }
            func value<V>(_ finish: (StoredValue) throws -> V) throws -> V {
                defer { index += 1 }
                return try finish(values[index])
            }
            return (repeat try key((each Key).self), repeat try value(each finishers))
        }
    }
}
