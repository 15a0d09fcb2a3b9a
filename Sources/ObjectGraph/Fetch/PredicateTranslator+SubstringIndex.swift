import Foundation

// A case-insensitive substring test that reads the attribute's substring index (SQLite's
// FTS5 trigram table, see `SearchIndexTable(substringsOf:)`) to find its candidate rows.

/// A condition of the form `<row key> IN (SELECT rowid FROM <index> WHERE <index> MATCH
/// '<columns> : "term"') AND <test>`: the rows the index says may contain `term` in one of
/// `columns`, narrowed by the scan's exact test.
///
/// Kept beside the translated SQL so that `a || b`, two such conditions on the same rows,
/// index and term (a search over a client's name, email and number), becomes one lookup over
/// both columns with the tests joined by `OR`: the index then reads the phrase's trigrams
/// once instead of once per column. The rows are the same: each lookup finds a superset of
/// its own test's rows, so `(L₁ ∧ T₁) ∨ (L₂ ∧ T₂)` equals `(L₁ ∨ L₂) ∧ (T₁ ∨ T₂)` here, and
/// `L₁ ∨ L₂` is the lookup over both columns.
struct SubstringLookup {
    var rowKey: SQLFragment
    var index: String
    var term: String
    var quotedColumns: [String]
    var test: SQLFragment

    /// The condition, or nil when the index cannot look `term` up.
    var condition: SQLFragment? {
        guard let query = SearchIndexTable.substringQuery(term, quotedColumns: quotedColumns) else { return nil }
        return sql("(\(rowKey) IN (SELECT rowid FROM \(raw: index) WHERE \(raw: index) MATCH \(StoredValue.string(query))) AND \(test))")
    }

    /// The lookup standing for `self || other`, when both read the same index for the same
    /// rows and term; nil otherwise.
    func merged(with other: SubstringLookup) -> SubstringLookup? {
        guard index == other.index, term == other.term, rowKey == other.rowKey else { return nil }
        var merged = self
        merged.quotedColumns += other.quotedColumns.filter { !quotedColumns.contains($0) }
        merged.test = sql("(\(test) OR \(other.test))")
        return merged
    }

    /// The same rows, only where `optional` is not NULL (`optional?.contains(term) == true`).
    func requiring(_ optional: SQLFragment) -> SubstringLookup {
        var required = self
        required.test = sql("(\(optional) IS NOT NULL AND \(test))")
        return required
    }
}

extension SQLOperand {
    /// A boolean operand that is exactly `lookup`'s condition, carrying the lookup.
    static func boolean(_ lookup: SubstringLookup) -> SQLOperand? {
        guard let condition = lookup.condition else { return nil }
        var operand = SQLOperand.boolean(condition)
        operand.substringLookup = lookup
        return operand
    }

    /// The substring lookup this operand's SQL is, if it still is: an operand rebuilt around
    /// another fragment keeps the field but no longer matches it.
    var currentSubstringLookup: SubstringLookup? {
        guard let lookup = substringLookup, lookup.condition == fragment else { return nil }
        return lookup
    }
}

extension PredicateTranslation {
    /// The lookup of `text` containing `part` in `text`'s substring index, the scan's exact
    /// `test` kept beside it. Nil when the dialect reads no index for `text`'s column, or
    /// `part` is not a captured string the index can look up (shorter than three
    /// characters): the scan alone then decides.
    func substringIndexLookup(_ text: SQLOperand, _ part: SQLOperand, test: SQLFragment) -> SubstringLookup? {
        guard let source = text.column,
              let index = dialect.substringIndex(entity: source.entity, column: source.column),
              part.fragment.sql == "?", part.fragment.bindings.count == 1,
              case .string(let term) = part.fragment.bindings[0] else { return nil }
        let lookup = SubstringLookup(rowKey: source.rowKey, index: index, term: term,
                                     quotedColumns: [source.column], test: test)
        return lookup.condition == nil ? nil : lookup
    }
}
