import Foundation

// `#Predicate { $0.name.localizedStandardContains("acme") }` on Linux.
//
// The #Predicate macro rewrites `a.localizedStandardContains(b)` to
// `PredicateExpressions.build_localizedStandardContains(a, b)`; the macro accepts the call on
// every platform, but only Apple's Foundation declares that builder. Declaring it here makes such
// predicates compile and evaluate on Linux too. The type mirrors Apple's (same name, `root` and
// `other`), so the translator's conformance in PredicateTranslator+Collections.swift applies to
// whichever of the two the platform has.
//
// Public, unlike the translator: predicates are written in the app's modules, and the macro
// expansion there must see the builder.
#if !canImport(Darwin)
extension PredicateExpressions {
    /// `root.localizedStandardContains(other)`: a case- and diacritic-insensitive substring
    /// test in the current locale, as Finder-style search fields do.
    public struct StringLocalizedStandardContains<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        public typealias Output = Bool

        public let root: Root
        public let other: Other

        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
            try root.evaluate(bindings).localizedStandardContains(other.evaluate(bindings))
        }
    }

    public static func build_localizedStandardContains<Root, Other>(_ root: Root, _ other: Other)
        -> StringLocalizedStandardContains<Root, Other> {
        StringLocalizedStandardContains(root: root, other: other)
    }
}

extension PredicateExpressions.StringLocalizedStandardContains: Sendable where Root: Sendable, Other: Sendable {}

extension PredicateExpressions.StringLocalizedStandardContains: Codable where Root: Codable, Other: Codable {}

// What lets the expression stand in a `Predicate`, whose body must be a
// `StandardPredicateExpression` (Codable and Sendable all the way down).
extension PredicateExpressions.StringLocalizedStandardContains: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
#endif
