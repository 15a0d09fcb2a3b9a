import Foundation

/// A fetch request translated for the store: the SQL of its predicate, search and order, and
/// what a fetch must do in memory.
struct FetchPlan {
    /// A full-text search: the query, and the entity's index beside its rows.
    struct Search {
        let query: SearchQuery
        /// The index, quoted: `"_og_fts_Invoice"`.
        let table: String
        /// The property indices of the indexed attributes, in the index's column order.
        let columnIndices: [Int]

        init?(_ query: SearchQuery, entity: EntityDescription) {
            guard !entity.searchableIndices.isEmpty else { return nil }
            self.query = query
            table = SQLSchema.quote(SQLSchema.searchIndexName(entity.name))
            columnIndices = entity.searchableIndices
        }

        /// ` JOIN "_og_fts_Invoice" ON "_og_fts_Invoice".rowid = t0._pk`
        var join: String { " JOIN \(table) ON \(table).rowid = \(PredicateTranslator.rootAlias)._pk" }
        /// `"_og_fts_Invoice" MATCH ?`
        var matchCondition: String { "\(table) MATCH ?" }
        /// FTS5's rank of a matching row: bm25, lower is better.
        var rank: String { "\(table).rank" }
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
                predicate = try PredicateTranslator(schema: schema, rootEntity: entity.name, dialect: dialect)
                    .translate(requested)
            } catch {
                throw FetchError.untranslatablePredicate("\(error)")
            }
        }
        crossesRelationships = predicate?.sql.contains("SELECT") ?? false
        if let query = request.searchQuery {
            guard let search = Search(query, entity: entity) else { throw FetchError.notSearchable(entity.name) }
            self.search = search
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
        var condition = SQLFragment(search.matchCondition, [.string(search.query.matchExpression)])
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
