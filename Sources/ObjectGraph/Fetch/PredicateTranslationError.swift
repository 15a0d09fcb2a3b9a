import Foundation

/// Why a `#Predicate` could not become an SQL `WHERE` clause.
///
/// Fetches surface these as they are, so each message names the construct and says what to
/// write instead. The translator throws rather than emit SQL whose results would differ from
/// `predicate.evaluate(_:)`: a wrong fetch is worse than a refused one.
enum PredicateTranslationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// An expression with no SQL form that selects the rows Swift would, e.g.
    /// "PredicateExpressions.SequenceMaximum is not translatable to SQL".
    case unsupportedExpression(description: String)
    /// A key path naming no stored attribute or relationship of `entity` (a computed property, say).
    case unknownKeyPath(keyPath: String, entity: String)
    /// A captured value of a type the store cannot bind.
    case unsupportedValue(description: String)

    var description: String {
        switch self {
        case .unsupportedExpression(let description):
            return description
        case .unknownKeyPath(let keyPath, let entity):
            return "The key path \(keyPath) on \(entity) names no stored attribute or relationship, "
                + "so a fetch cannot test it in SQL; use a stored property in the predicate, "
                + "or filter the fetched objects in memory."
        case .unsupportedValue(let description):
            return description
        }
    }

    /// The error for an expression type the translator has no rule for.
    static func unsupported(_ expression: Any, _ hint: String = "") -> PredicateTranslationError {
        let name = expressionTypeName(type(of: expression))
        let suffix = hint.isEmpty ? "" : "; \(hint)"
        return .unsupportedExpression(description: "\(name) is not translatable to SQL\(suffix).")
    }

    /// A key path as a user can read it: Swift prints a computed property (which every
    /// `@Attribute` is) as `<computed 0x55d0… (Bool)>`; the address means nothing to a reader.
    static func keyPathName(_ keyPath: AnyKeyPath) -> String {
        "\(keyPath)".replacing(/<computed 0x[0-9a-fA-F]+ \((.*?)\)>/) { "<computed \($0.1) property>" }
    }

    /// `PredicateExpressions.Filter` for `FoundationEssentials.PredicateExpressions.Filter<…>`:
    /// the generic arguments repeat the whole predicate and the module name says nothing to a user.
    static func expressionTypeName(_ type: Any.Type) -> String {
        let full = String(reflecting: type)
        let base = full.prefix { $0 != "<" }
        let parts = base.split(separator: ".")
        return parts.count > 1 ? parts.dropFirst().joined(separator: ".") : String(base)
    }
}
