import Foundation

/// A fetch request translated for the store: the SQL of its predicate, search and order, and
/// what a fetch must do in memory.
struct FetchPlan {
    /// A full-text search: the query, and the SQL that finds and ranks its rows in the
    /// store's dialect.
    struct Search {
        let query: SearchQuery
        /// The property indices of the indexed attributes, in the index's column order.
        let columnIndices: [Int]
        /// The table beside the rows (SQLite's FTS5 index), or empty.
        let join: String
        /// The condition of a match: `"_og_fts_Invoice" MATCH ?` on SQLite.
        let matchCondition: SQLFragment
        /// A matching row's rank, lower is better: FTS5's bm25 on SQLite.
        let rank: String

        /// - Throws: ``FetchError/notSearchable(_:)`` for an entity without searchable
        ///   attributes, ``StoreError/unsupported(_:)`` for a store that cannot search.
        init(_ query: SearchQuery, entity: EntityDescription, dialect: SQLDialect) throws {
            guard !entity.searchableIndices.isEmpty else { throw FetchError.notSearchable(entity.name) }
            guard let sql = dialect.fullTextSearch else {
                throw StoreError.unsupported("full-text search (FetchRequest.searchQuery) on \(dialect)")
            }
            self.query = query
            columnIndices = entity.searchableIndices
            join = sql.join(entity: entity)
            matchCondition = query.isEmpty ? SQLFragment(dialect.falseLiteral) : sql.matchCondition(query, entity: entity)
            rank = sql.rank(entity: entity)
        }
    }

    let entity: EntityDescription
    /// The `WHERE` condition: the search's `MATCH` first, then the predicate.
    let condition: SQLFragment?
    /// The search index beside the rows (`JOIN …`), or empty.
    let join: String
    let orderBy: String?
    let search: Search?
    /// Results come best match first (the search's rank before the sort descriptors).
    let sortsByRank: Bool
    /// Some sort key cannot be expressed in SQL: results are sorted in memory.
    let sortsInMemory: Bool
    let crossesRelationships: Bool

    /// - Throws: ``FetchError`` for an entity not in the model, a predicate or sort key that
    ///   cannot be translated, or a search of an entity without searchable attributes.
    init<T: ManagedObject>(_ request: FetchRequest<T>, model: ManagedObjectModel, dialect: SQLDialect) throws {
        guard let entity = model.entity(for: T.self) else { throw FetchError.unknownEntity(String(describing: T.self)) }
        self.entity = entity
        let schema = ModelPredicateSchema(model: model)
        var predicate: SQLFragment?
        if let requested = request.predicate {
            do {
                let dialect = request.readsSubstringIndexes ? dialect : dialect.readingNoSubstringIndexes()
                predicate = try PredicateTranslator(schema: schema, rootEntity: entity.name, dialect: dialect)
                    .translate(requested)
            } catch {
                throw FetchError.untranslatablePredicate("\(error)")
            }
        }
        crossesRelationships = predicate?.sql.contains("SELECT") ?? false
        if let query = request.searchQuery {
            search = try Search(query, entity: entity, dialect: dialect)
        } else {
            search = nil
        }
        (condition, join) = Self.filter(predicate, search: search, dialect: dialect)
        sortsByRank = request.sortsBySearchRank && search.map { !$0.query.isEmpty } == true
        var terms = sortsByRank ? [search?.rank ?? ""] : []
        var inMemory = false
        for descriptor in request.sortDescriptors {
            guard let keyPath = descriptor.keyPath else { throw FetchError.unsupportedSortKey("\(descriptor)") }
            guard schema.resolve(keyPath, from: entity.name) != nil else {
                throw FetchError.unsupportedSortKey("\(keyPath)")
            }
            guard let expression = schema.sortExpression(keyPath, from: entity.name, dialect: dialect) else {
                inMemory = true
                continue
            }
            // Strings compare lexically (SQLite's BINARY, like Swift's `<`) unless the
            // descriptor asks for another comparator; those become ASCII case-insensitive.
            let ignoresCase = request.sortsStringsCaseInsensitively
                || descriptor.stringComparator.map({ $0 != .lexical }) == true
            terms.append((ignoresCase ? dialect.caseInsensitiveSortKey(expression) : expression)
                         + dialect.direction(ascending: descriptor.order == .forward))
        }
        sortsInMemory = inMemory
        // Ties go by primary key, in the direction of the last sort key: an index on the sort
        // keys then gives the whole order read forwards or backwards (SQLite's rowid ends
        // every index), and nothing is sorted.
        let tieBreak = request.sortDescriptors.last?.order == .reverse ? "t0._pk DESC" : "t0._pk"
        orderBy = terms.isEmpty ? nil : (terms + [tieBreak]).joined(separator: ", ")
    }

    /// The order of two objects the sort keys find equal, as the SQL's last `ORDER BY` term
    /// gives it: by primary key, descending after a reverse last key; unsaved objects (no
    /// key yet) as if their key were the largest.
    static func tieBreak(_ a: ObjectID, _ b: ObjectID, descending: Bool) -> Bool {
        let (x, y) = (a.primaryKey ?? .max, b.primaryKey ?? .max)
        return descending ? x > y : x < y
    }

    /// The `WHERE` condition and the join: `MATCH` on the index joined by key, then the
    /// predicate. A query without words matches nothing, so it needs no index at all.
    private static func filter(_ predicate: SQLFragment?, search: Search?, dialect: SQLDialect) -> (SQLFragment?, String) {
        guard let search else { return (predicate, "") }
        guard !search.query.isEmpty else { return (SQLFragment(dialect.falseLiteral), "") }
        var condition = search.matchCondition
        if let predicate {
            condition.sql += " AND (\(predicate.sql))"
            condition.bindings += predicate.bindings
        }
        return (condition, search.join)
    }

    /// Whether pending changes (or sorting) require evaluating the request in memory.
    func needsMemoryPass(_ overlay: PendingOverlay) -> Bool {
        if sortsInMemory { return true }
        if overlay.isEmpty { return false }
        return overlay.touches(entity.name) || crossesRelationships
    }
}
