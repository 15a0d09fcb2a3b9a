import ObjectGraph

/// Full-text search on PostgreSQL: each entity with `.searchable` attributes keeps a
/// `tsvector` of them in a column of its own (`_og_search`), set by a trigger, with a GIN
/// index; a search tests it with `@@` against a `tsquery` of the ``SearchQuery``'s phrases and
/// ranks by `ts_rank`. All of its SQL is here.
///
/// ```sql
/// ALTER TABLE "Invoice" ADD COLUMN _og_search tsvector;
/// CREATE FUNCTION "_og_fts_Invoice"() RETURNS trigger … NEW._og_search := ts_delete(
///     to_tsvector('"s".og_search', regexp_replace(coalesce(NEW."identifier", ''), '[^[:alnum:]]+', ' ', 'g'))
///     || ''' '':1'::tsvector
///     || to_tsvector('"s".og_search', regexp_replace(coalesce(NEW."notes", ''), '[^[:alnum:]]+', ' ', 'g')), ' ') …
/// CREATE TRIGGER _og_search BEFORE INSERT OR UPDATE OF "identifier", "notes" ON "Invoice" …
/// CREATE INDEX "_og_fts_Invoice" ON "Invoice" USING gin (_og_search);
/// SELECT … FROM "Invoice" t0 WHERE t0._og_search @@ to_tsquery('og_search', $1) AND (<predicate>)
///     ORDER BY -ts_rank(t0._og_search, to_tsquery('og_search', $1), 1), t0._pk
/// ```
///
/// Why this shape, to answer as SQLite's FTS5 (`unicode61 remove_diacritics 2`) does:
/// - **Words are runs of letters and digits.** PostgreSQL's parser reads `a@b.com`, URLs,
///   `1.2.3` and `INV-2024-7` as tokens of their own; every run of other characters becomes a
///   space first, so it sees the words FTS5 sees (`inv`, `2024`, `7`).
/// - **The `og_search` configuration**: `simple` (lower case, no stemming, no stop words),
///   after the `unaccent` dictionary when the server has that extension, as FTS5 removes
///   diacritics. Documents and queries go through the same configuration, so they fold alike.
/// - **A stored vector, not an index on an expression.** `ts_rank` reads each match's vector,
///   which an expression index does not keep: ranking a word in 20% of 100,000 rows took
///   241 ms recomputing them. The trigger fires only when a searchable column is written,
///   and, as SQLite's triggers, for every writer (batch requests, other programs); it names
///   its configuration with its schema, so a session with another `search_path` computes the
///   same vector.
/// - **One `tsvector` per entity, columns kept apart.** A lexeme no word can be (a space) sits
///   between the columns' vectors and is then deleted, leaving a gap in the positions: a
///   phrase never runs from one attribute into the next, as in FTS5.
/// - **The query is bound, never spliced into SQL.** Its text is built from the phrases'
///   tokens, each quoted (`'` doubled, `\` escaped, though tokens hold only letters, digits
///   and marks): `'inv' <-> '2024' <-> '7' & 'acme':*`. No typed text can make it a syntax
///   error. A token of 2,047 bytes or more (PostgreSQL indexes no such word) makes the whole
///   query match nothing, as it would on SQLite unless a document held that very word.
/// - **The rank refers to the query as `$1`**: a fetch puts the search's condition first, so
///   its one parameter is the statement's first. Negated, so that lower is better as bm25.
///
/// Where the answers can differ from SQLite's (documented in the README):
/// - Order: `ts_rank` with length normalisation (1: divided by 1 + log of the length) is not
///   bm25; both put a document holding more of the words, or the same words in less text,
///   first, but ties and close calls may go another way.
/// - Folding: `unaccent` also expands letters FTS5 keeps (`ß` → `ss`, `æ` → `ae`, `ø` → `o`),
///   on both sides, so such a query finds a bit more; without `unaccent`, diacritics count.
///   Text in decomposed form (`e` + U+0301) splits at the mark. A word PostgreSQL's parser
///   does not count as one (a lone `½`) is left out of the query.
/// - Limits: a `tsvector` holds at most 1 MB and positions up to 16,383: a save of an
///   attribute past that fails (with the server's error), and phrases past that position
///   match loosely.
/// - An entity that stops declaring attributes searchable keeps its column, trigger and
///   index, as on SQLite: another model version may still search it.
final class PostgreSQLFullTextSearch: FullTextSearchSQL {
    /// The text search configuration documents and queries are read with.
    static let configuration = "og_search"
    /// The column of an entity's table that holds the vector of its searchable attributes.
    static let column = "_og_search"
    /// PostgreSQL ignores longer words (`MAXSTRLEN`).
    static let maximumLexemeBytes = 2_046
    /// One is enough: it holds nothing.
    static let shared = PostgreSQLFullTextSearch()

    func join(entity: EntityDescription) -> String { "" }

    func matchCondition(_ query: SearchQuery, entity: EntityDescription) -> SQLFragment {
        "t0.\(raw: Self.column) @@ to_tsquery('\(raw: Self.configuration)', \(.string(Self.tsquery(query))))"
    }

    func rank(entity: EntityDescription) -> String {
        "-ts_rank(t0.\(Self.column), to_tsquery('\(Self.configuration)', $1), 1)"
    }

    /// The query's phrases as `to_tsquery` reads them; empty (no lexemes: matches nothing)
    /// when a token is too long for PostgreSQL to have indexed.
    static func tsquery(_ query: SearchQuery) -> String {
        let tooLong = query.phrases.contains { $0.tokens.contains { $0.utf8.count > maximumLexemeBytes } }
        guard !tooLong else { return "" }
        return query.phrases.map { phrase in
            phrase.tokens.enumerated().map { n, token in
                let quoted = "'" + token.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
                return phrase.isPrefix && n == phrase.tokens.count - 1 ? quoted + ":*" : quoted
            }.joined(separator: " <-> ")
        }.joined(separator: " & ")
    }

    /// The `tsvector` of the entity's searchable attributes, their columns prefixed with
    /// `row` (`NEW.` in the trigger, nothing in the table's `UPDATE`), read with
    /// `configuration` (an SQL literal).
    static func document(of entity: EntityDescription, row: String, configuration: String) -> String {
        let vectors = entity.searchableAttributes.map { attribute in
            let column = row + SQLDialect.quote(attribute.name)
            return "to_tsvector(\(configuration), regexp_replace(coalesce(\(column), ''), '[^[:alnum:]]+', ' ', 'g'))"
        }
        guard vectors.count > 1 else { return vectors.first ?? "''::tsvector" }
        return "ts_delete(" + vectors.joined(separator: " || ''' '':1'::tsvector || ") + ", ' ')"
    }

    // MARK: Indexes

    /// The index's (and trigger function's) name: `_og_fts_Invoice`, as SQLite names its FTS5
    /// table; cut to 63 bytes at a character's end, as PostgreSQL cuts the names it is given,
    /// so that it is found again.
    static func indexName(_ entity: EntityDescription) -> String {
        var name = ""
        var bytes = 0
        for scalar in ("_og_fts_" + entity.name).unicodeScalars {
            bytes += String(scalar).utf8.count
            guard bytes <= 63 else { break }
            name.unicodeScalars.append(scalar)
        }
        return name
    }

    /// Makes the configuration, and each entity's column, trigger and index unless they are
    /// in their declared shape (the index's comment names the attributes the column holds),
    /// inside the schema's opening transaction. A declaration that is new, or changed, makes
    /// them anew and fills the column from the rows.
    static func create(for model: ManagedObjectModel, in db: PostgreSQLConnection) throws {
        let entities = model.entities.filter { !$0.searchableAttributes.isEmpty }
        guard !entities.isEmpty else { return }
        try createConfiguration(in: db)
        let schema = try db.query("SELECT quote_ident(current_schema())").first ?? "public"
        let configuration = "'" + (schema + "." + Self.configuration).replacingOccurrences(of: "'", with: "''") + "'"
        for entity in entities {
            let columns = entity.searchableAttributes.map(\.name).joined(separator: ",")
            // Read from `pg_class` by a query, as `PostgreSQLSchema.tableExists` does: it sees
            // what another store made while this one waited for the opening lock.
            let existing = try db.query("""
                SELECT coalesce(obj_description(c.oid, 'pg_class'), '') FROM pg_class c
                JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = current_schema() AND c.relname = \(.string(indexName(entity))) AND c.relkind = 'i'
                """)
            if existing.first == columns { continue }
            try build(entity, columns: columns, configuration: configuration, in: db)
        }
    }

    /// The column, its trigger, its values and its index, made anew. The names are the
    /// model's (a utility statement takes no parameters).
    private static func build(_ entity: EntityDescription, columns: String, configuration: String,
                              in db: PostgreSQLConnection) throws {
        let table = SQLSchema.table(entity)
        let name = SQLDialect.quote(indexName(entity))
        let written = entity.searchableAttributes.map { SQLDialect.quote($0.name) }.joined(separator: ", ")
        try db.execute("""
            ALTER TABLE \(table) ADD COLUMN IF NOT EXISTS \(column) tsvector;
            CREATE OR REPLACE FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql AS $og$ BEGIN
                NEW.\(column) := \(document(of: entity, row: "NEW.", configuration: configuration)); RETURN NEW;
            END $og$;
            DROP TRIGGER IF EXISTS \(column) ON \(table);
            CREATE TRIGGER \(column) BEFORE INSERT OR UPDATE OF \(written) ON \(table)
                FOR EACH ROW EXECUTE FUNCTION \(name)();
            UPDATE \(table) SET \(column) = \(document(of: entity, row: "", configuration: configuration));
            DROP INDEX IF EXISTS \(name);
            CREATE INDEX \(name) ON \(table) USING gin (\(column));
            COMMENT ON INDEX \(name) IS '\(columns.replacingOccurrences(of: "'", with: "''"))'
            """)
    }

    /// Makes `og_search` in the current schema unless it is there: `simple` after `unaccent`
    /// when the server can make that extension, `simple` alone otherwise.
    private static func createConfiguration(in db: PostgreSQLConnection) throws {
        let found = try db.query("""
            SELECT 1 FROM pg_ts_config WHERE cfgname = \(.string(configuration)) AND cfgnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
            """)
        guard found.rowCount == 0 else { return }
        try db.execute("CREATE TEXT SEARCH CONFIGURATION \(configuration) (COPY = pg_catalog.simple)")
        guard let unaccent = try unaccentSchema(in: db) else { return }
        try db.execute("""
            ALTER TEXT SEARCH CONFIGURATION \(configuration) ALTER MAPPING FOR asciiword, word, numword, asciihword,
            hword, numhword, hword_asciipart, hword_part, hword_numpart WITH \(unaccent).unaccent, pg_catalog.simple
            """)
    }

    /// The schema of the `unaccent` extension, after creating it when the server has it (a
    /// savepoint keeps a refusal, for want of privilege, from ending the transaction); nil
    /// when it cannot be had: search then folds case only.
    private static func unaccentSchema(in db: PostgreSQLConnection) throws -> String? {
        let installed = "SELECT quote_ident(n.nspname) FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent'"
        if let schema = try db.query(SQLFragment(installed)).first { return schema }
        guard try db.query("SELECT 1 FROM pg_available_extensions WHERE name = 'unaccent'").rowCount > 0 else { return nil }
        try db.run("SELECT pg_advisory_xact_lock(hashtext('objectgraph.unaccent'))")
        try db.execute("SAVEPOINT og_unaccent")
        do {
            try db.execute("CREATE EXTENSION IF NOT EXISTS unaccent")
            try db.execute("RELEASE SAVEPOINT og_unaccent")
        } catch StoreError.server {
            try db.execute("ROLLBACK TO SAVEPOINT og_unaccent")
            return nil
        }
        return try db.query(SQLFragment(installed)).first
    }
}

private extension PostgreSQLResult {
    /// The first row's first column, if there is a row.
    var first: String? { rowCount > 0 ? text(0, 0) : nil }
}
