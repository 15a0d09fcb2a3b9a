import Foundation
import ObjectGraph

/// Predicates assembled at run time from the filters a list request turns on.
///
/// A single `#Predicate` with every filter switched by flags is too much for the type checker,
/// and `#Predicate`s cannot be combined after the fact in a form ObjectGraph translates
/// (it does not translate `Predicate.evaluate` inside a predicate). So each filter is a
/// small expression built on the predicate's variable, and ``all(_:)`` / ``any(_:)`` join
/// them with `&&` / `||` into one `Predicate` the store runs as one `WHERE`.
enum PredicateComposition<Root: ManagedObject> {
    typealias Variable = PredicateExpressions.Variable<Root>
    typealias Condition = any StandardPredicateExpression<Bool>
    /// One filter: a Bool expression of the object the variable stands for.
    typealias Part = (Variable) -> Condition

    /// All parts must hold; nil when there are none (no `WHERE` at all).
    static func all(_ parts: [Part]) -> Predicate<Root>? {
        guard let first = parts.first else { return nil }
        return Predicate<Root>({ variable in
            parts.dropFirst().reduce(first(variable)) { joined, part in conjunction(joined, part(variable)) }
        })
    }

    /// A part that holds when any of `parts` holds.
    static func any(_ parts: [Part]) -> Part {
        { variable in
            let conditions = parts.map { $0(variable) }
            guard let first = conditions.first else { return PredicateExpressions.Value(false) }
            return conditions.dropFirst().reduce(first) { disjunction($0, $1) }
        }
    }

    // Generic so that each existential is opened and the node gets its concrete types.
    private static func conjunction(_ lhs: Condition, _ rhs: Condition) -> Condition {
        func join<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ l: L, _ r: R) -> Condition {
            PredicateExpressions.Conjunction(lhs: l, rhs: r)
        }
        return join(lhs, rhs)
    }

    private static func disjunction(_ lhs: Condition, _ rhs: Condition) -> Condition {
        func join<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ l: L, _ r: R) -> Condition {
            PredicateExpressions.Disjunction(lhs: l, rhs: r)
        }
        return join(lhs, rhs)
    }

    // MARK: Parts

    /// `object[keyPath] == value`.
    static func equal<Value: Equatable & Codable & Sendable>(_ keyPath: KeyPath<Root, Value> & Sendable,
                                                             _ value: Value) -> Part {
        { variable in
            PredicateExpressions.Equal(lhs: PredicateExpressions.KeyPath(root: variable, keyPath: keyPath),
                                       rhs: PredicateExpressions.Value(value))
        }
    }

    /// `object[keyPath] <op> value`.
    static func compare<Value: Comparable & Codable & Sendable>(_ keyPath: KeyPath<Root, Value> & Sendable,
                                                                _ op: PredicateExpressions.ComparisonOperator,
                                                                _ value: Value) -> Part {
        { variable in
            PredicateExpressions.Comparison(lhs: PredicateExpressions.KeyPath(root: variable, keyPath: keyPath),
                                            rhs: PredicateExpressions.Value(value), op: op)
        }
    }

    /// `object[keyPath].localizedStandardContains(term)`.
    static func contains(_ keyPath: KeyPath<Root, String> & Sendable, _ term: String) -> Part {
        { variable in
            PredicateExpressions.build_localizedStandardContains(
                PredicateExpressions.KeyPath(root: variable, keyPath: keyPath), PredicateExpressions.Value(term))
        }
    }

    /// `object[keyPath]?.localizedStandardContains(term) == true`.
    static func contains(_ keyPath: KeyPath<Root, String?> & Sendable, _ term: String) -> Part {
        { variable in
            let optional = PredicateExpressions.KeyPath(root: variable, keyPath: keyPath)
            let test = PredicateExpressions.OptionalFlatMap(optional) { text in
                PredicateExpressions.build_localizedStandardContains(text, PredicateExpressions.Value(term))
            }
            return PredicateExpressions.Equal(lhs: test, rhs: PredicateExpressions.Value(Optional(true)))
        }
    }

    /// `object[relationship]?[keyPath].localizedStandardContains(term) == true`: a string of
    /// a to-one destination. (Foundation's key-path expressions take one component, so the
    /// hop through the optional relationship is a `flatMap`, as `#Predicate` writes it.)
    static func contains<Related: ManagedObject>(_ relationship: KeyPath<Root, Related?> & Sendable,
                                                 _ keyPath: KeyPath<Related, String> & Sendable,
                                                 _ term: String) -> Part {
        { variable in
            let related = PredicateExpressions.KeyPath(root: variable, keyPath: relationship)
            let test = PredicateExpressions.OptionalFlatMap(related) { object in
                PredicateExpressions.build_localizedStandardContains(
                    PredicateExpressions.KeyPath(root: object, keyPath: keyPath), PredicateExpressions.Value(term))
            }
            return PredicateExpressions.Equal(lhs: test, rhs: PredicateExpressions.Value(Optional(true)))
        }
    }
}
