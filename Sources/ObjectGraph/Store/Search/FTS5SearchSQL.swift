/// Full-text search on SQLite: the entity's FTS5 table (``SearchIndexTable``) joined by key,
/// `MATCH` with the query's phrases, and FTS5's bm25 rank.
///
/// ```sql
/// SELECT … FROM "Invoice" t0 JOIN "_og_fts_Invoice" ON "_og_fts_Invoice".rowid = t0._pk
/// WHERE "_og_fts_Invoice" MATCH ? ORDER BY "_og_fts_Invoice".rank, t0._pk
/// ```
package final class FTS5SearchSQL: FullTextSearchSQL {
    package init() {}

    package func join(entity: EntityDescription) -> String {
        let table = Self.table(entity)
        return " JOIN \(table) ON \(table).rowid = \(PredicateTranslator.rootAlias)._pk"
    }

    package func matchCondition(_ query: SearchQuery, entity: EntityDescription) -> SQLFragment {
        SQLFragment("\(Self.table(entity)) MATCH ?", [.string(query.matchExpression)])
    }

    /// bm25: lower (more negative) is better.
    package func rank(entity: EntityDescription) -> String { "\(Self.table(entity)).rank" }

    /// The index, quoted: `"_og_fts_Invoice"`.
    private static func table(_ entity: EntityDescription) -> String {
        SQLSchema.quote(SQLSchema.searchIndexName(entity.name))
    }
}
