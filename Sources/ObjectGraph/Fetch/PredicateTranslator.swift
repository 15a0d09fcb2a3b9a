import Foundation

// Temporary: replaced by the real translator.
struct PredicateNotYetTranslatable: Error {}

struct PredicateTranslator {
    init(schema: some PredicateSchema, rootEntity: String) {}
    func translate<T>(_ predicate: Predicate<T>) throws -> SQLFragment {
        throw PredicateNotYetTranslatable()
    }
}
