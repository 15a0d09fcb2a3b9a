/// How one store's SQL finds the rows a full-text search matches, and ranks them: SQLite
/// joins its FTS5 table (``FTS5SearchSQL``), PostgreSQL tests a `tsvector` expression its GIN
/// index holds (`PostgreSQLFullTextSearch`). A store's ``SQLDialect`` carries its own.
///
/// Classes, so that a dialect holding one stays a loadable value: an existential of any
/// type would make every struct that stores a dialect address-only, and the compiler would
/// then refuse disjoint accesses to such structs' properties (`GroupTable`).
package protocol FullTextSearchSQL: AnyObject, Sendable {
    /// A table put beside the entity's rows (aliased `t0`) for the condition and rank to
    /// read, as ` JOIN …`; empty when they need none.
    func join(entity: EntityDescription) -> String

    /// The condition that a row matches `query`, which has words. Its bindings come first
    /// among the statement's (a fetch puts it before the predicate), so ``rank(entity:)``
    /// may refer to them by number.
    func matchCondition(_ query: SearchQuery, entity: EntityDescription) -> SQLFragment

    /// The rank of a matching row, for `ORDER BY` and ``PersistentStore/fetchRankedRows``:
    /// lower is a better match. Binds nothing itself.
    func rank(entity: EntityDescription) -> String
}
