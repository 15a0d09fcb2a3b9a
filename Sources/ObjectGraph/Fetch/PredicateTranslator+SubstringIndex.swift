import Foundation

// A case-insensitive substring test that reads the attribute's substring index (SQLite's
// FTS5 trigram table, see `SearchIndexTable(substringsOf:)`) to find its candidate rows.

extension PredicateTranslation {
    /// `<row key> IN (SELECT rowid FROM <index> WHERE <index> MATCH '"column" : "term"')`, the
    /// rows whose `text` may contain `part`, for the caller to `AND` with the scan's own test
    /// (which keeps the result exact). Nil when the dialect reads no index for `text`'s
    /// column, or `part` is not a captured string the index can look up (shorter than three
    /// characters): the scan alone then decides.
    func substringIndexLookup(_ text: SQLOperand, _ part: SQLOperand) -> SQLFragment? {
        guard let source = text.column,
              let index = dialect.substringIndex(entity: source.entity, column: source.column),
              part.fragment.sql == "?", part.fragment.bindings.count == 1,
              case .string(let term) = part.fragment.bindings[0],
              let query = SearchIndexTable.substringQuery(term, quotedColumn: source.column) else { return nil }
        return sql("\(source.rowKey) IN (SELECT rowid FROM \(raw: index) WHERE \(raw: index) MATCH \(StoredValue.string(query)))")
    }
}
