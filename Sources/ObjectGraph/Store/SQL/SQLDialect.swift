import Foundation

/// Where the SQL of ObjectGraph's stores differs between SQLite and PostgreSQL, in one place.
///
/// Everything else (the predicate translator, fetch and aggregate plans, the stores'
/// statements) is written once, in what the two dialects share, and asks its dialect for these
/// pieces only:
///
/// | | SQLite | PostgreSQL |
/// | --- | --- | --- |
/// | identifiers | `"name"`, `"` doubled | the same |
/// | booleans | `1`, `0` (stored as integers) | `TRUE`, `FALSE` |
/// | null-safe equality | `IS`, `IS NOT` | `IS NOT DISTINCT FROM`, `IS DISTINCT FROM` |
/// | substring test | `instr(text, part) > 0` | `position(part IN text) > 0` |
/// | case-insensitive substring | `instr(lower(…), lower(…)) > 0` | `lower(…) LIKE '%' \|\| escaped(lower(…)) \|\| '%'` |
/// | case-insensitive order | `x COLLATE NOCASE` | `lower(x)` |
/// | nil in an order | the smallest (the default) | `ASC NULLS FIRST`, `DESC NULLS LAST` |
/// | Decimal order | `CAST(x AS REAL)` (stored as text) | `x` (stored as `NUMERIC`) |
/// | offset without limit | `LIMIT -1 OFFSET n` | `OFFSET n` |
/// | insert unless present | `INSERT OR IGNORE INTO …` | `INSERT INTO … ON CONFLICT DO NOTHING` |
/// | insert or replace by key | `INSERT OR REPLACE INTO …` | `… ON CONFLICT (key) DO UPDATE SET …` |
/// | keys left out of a query | `NOT IN (SELECT value FROM json_each(?))` | `NOT IN (SELECT … json_array_elements_text(?::json))` |
/// | keys a query is limited to | `IN (SELECT value FROM json_each(?))` | `IN (SELECT … json_array_elements_text(?::json))` |
///
/// SQLite tests substrings by position: its `LIKE` folds ASCII case on its own terms. PostgreSQL
/// tests a case-insensitive substring with `LIKE` on `lower()`, the part's `\`, `%` and `_`
/// escaped in SQL, so the two mean the same; `LIKE` there can use a trigram index on
/// `lower(column)` (`PostgreSQLStore.Configuration.substringSearchIndexes`), where a position
/// test reads every row.
/// On SQLite, a case-insensitive substring test of an attribute declared
/// `.indexedForSubstringSearch` first looks its rows up in the entity's FTS5 trigram table
/// (`SearchIndexTable(substringsOf:)`), then applies the same `instr` test to those rows
/// only; a store's dialect lists the columns it can read so (``readingSubstringIndexes(of:)``).
/// Full-text search differs too much for a table row: each dialect carries the store's
/// ``FullTextSearchSQL`` (FTS5 on SQLite, a GIN-indexed `tsvector` on PostgreSQL, given by
/// its store with ``searching(with:)``).
/// `RETURNING` is the same in both (SQLite has it since 3.35) and needs no entry.
package struct SQLDialect: Sendable, Hashable, CustomStringConvertible {
    /// The database engines ObjectGraph speaks to.
    package enum Engine: String, Sendable, Hashable {
        case sqlite = "SQLite"
        case postgreSQL = "PostgreSQL"
    }

    package let engine: Engine
    /// The columns (`Entity` and quoted column) whose substring tests read an FTS5 trigram
    /// table; empty: every substring test scans.
    private var substringIndexedColumns: Set<[String]> = []
    /// How searches are written; nil: the store cannot search (PostgreSQL's until its
    /// store says how).
    package private(set) var fullTextSearch: (any FullTextSearchSQL)?

    package static let sqlite = SQLDialect(engine: .sqlite, fullTextSearch: FTS5SearchSQL())
    package static let postgreSQL = SQLDialect(engine: .postgreSQL, fullTextSearch: nil)

    private init(engine: Engine, fullTextSearch: (any FullTextSearchSQL)?) {
        self.engine = engine
        self.fullTextSearch = fullTextSearch
    }

    /// This dialect, writing full-text searches with `search`.
    package func searching(with search: any FullTextSearchSQL) -> SQLDialect {
        var dialect = self
        dialect.fullTextSearch = search
        return dialect
    }

    /// Dialects are equal by engine and indexes read; the search SQL follows the engine.
    package static func == (a: SQLDialect, b: SQLDialect) -> Bool {
        a.engine == b.engine && a.substringIndexedColumns == b.substringIndexedColumns
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(engine)
        hasher.combine(substringIndexedColumns)
    }

    /// This dialect, with the substring tests of `model`'s `.indexedForSubstringSearch`
    /// attributes reading their index (SQLite only: PostgreSQL's `LIKE` on `lower()` reads a
    /// trigram index by itself). For a store whose indexes exist.
    package func readingSubstringIndexes(of model: ManagedObjectModel) -> SQLDialect {
        guard engine == .sqlite else { return self }
        var dialect = self
        for entity in model.entities {
            for attribute in entity.substringIndexedAttributes {
                dialect.substringIndexedColumns.insert([entity.name, Self.quote(attribute.name)])
            }
        }
        return dialect
    }

    /// This dialect with every substring test scanning, indexes or not (a fetch that walks a
    /// sorted index and stops when its page is full: ``FetchRequest/readsSubstringIndexes``).
    package func readingNoSubstringIndexes() -> SQLDialect {
        var dialect = self
        dialect.substringIndexedColumns = []
        return dialect
    }

    /// The quoted substring index that holds `column` (quoted) of `entity`, or nil.
    package func substringIndex(entity: String, column: String) -> String? {
        substringIndexedColumns.contains([entity, column]) ? Self.quote(SQLSchema.substringIndexName(entity)) : nil
    }

    package var description: String { engine.rawValue }

    // MARK: Identifiers

    /// `"name"` with embedded quotes doubled: an identifier, the same in both dialects.
    package static func quote(_ identifier: String) -> String {
        // Saves and relationship writes quote names per row: skip Foundation's search when
        // there is nothing to double, which is almost always.
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    // MARK: Booleans

    /// The literal of a condition that always holds.
    package var trueLiteral: String { engine == .sqlite ? "1" : "TRUE" }
    /// The literal of a condition that never holds.
    package var falseLiteral: String { engine == .sqlite ? "0" : "FALSE" }

    /// `condition`, false where it is NULL: SQL's three-valued logic would make `NOT (NULL)`
    /// NULL (not true) where Swift's two-valued logic gives true.
    package func nullAsFalse(_ condition: SQLFragment) -> SQLFragment {
        "COALESCE(\(condition), \(raw: falseLiteral))"
    }

    // MARK: Comparisons

    /// The operator of null-safe equality (nil equals nil; nil differs from every value).
    package func nullSafeEquality(negated: Bool) -> String {
        switch engine {
        case .sqlite: negated ? "IS NOT" : "IS"
        case .postgreSQL: negated ? "IS DISTINCT FROM" : "IS NOT DISTINCT FROM"
        }
    }

    /// A Decimal column or value in a form SQL orders as numbers.
    package func orderedAsNumber(decimal expression: SQLFragment) -> SQLFragment {
        switch engine {
        // Stored as canonical text, which orders "10" before "9"; both sides go through
        // SQLite's own text-to-REAL conversion, so equal Decimals never compare unequal.
        case .sqlite: "CAST(\(expression) AS REAL)"
        case .postgreSQL: expression
        }
    }

    // MARK: Strings and bytes

    /// Whether `text` contains `part` (text in text, or bytes in bytes), case-sensitively.
    package func contains(_ text: SQLFragment, _ part: SQLFragment) -> SQLFragment {
        switch engine {
        case .sqlite: "(instr(\(text), \(part)) > 0)"
        case .postgreSQL: "(position(\(part) IN \(text)) > 0)"
        }
    }

    /// Whether `text` contains `part`, ignoring case as the engine's `lower()` folds it
    /// (SQLite: ASCII only; PostgreSQL: the database's locale).
    package func containsIgnoringCase(_ text: SQLFragment, _ part: SQLFragment) -> SQLFragment {
        switch engine {
        case .sqlite:
            return contains("lower(\(text))", "lower(\(part))")
        case .postgreSQL:
            let escaped: SQLFragment = "replace(replace(replace(lower(\(part)), '\\', '\\\\'), '%', '\\%'), '_', '\\_')"
            return "(lower(\(text)) LIKE ('%' || \(escaped) || '%'))"
        }
    }

    /// A sort key compared without regard to ASCII case.
    package func caseInsensitiveSortKey(_ expression: String) -> String {
        switch engine {
        case .sqlite: expression + " COLLATE NOCASE"
        case .postgreSQL: "lower(\(expression))"
        }
    }

    // MARK: Order

    /// ` ASC` or ` DESC`, with nil the smallest value in both dialects (SQLite's rule, and
    /// Swift's for optionals); PostgreSQL would put it last.
    package func direction(ascending: Bool) -> String {
        switch engine {
        case .sqlite: ascending ? " ASC" : " DESC"
        case .postgreSQL: ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST"
        }
    }

    // MARK: Paging

    /// ` LIMIT … OFFSET …`, or nothing when neither applies.
    package func limitClause(limit: Int?, offset: Int) -> String {
        switch (limit, offset) {
        case (nil, 0): ""
        case (nil, let o): engine == .sqlite ? " LIMIT -1 OFFSET \(o)" : " OFFSET \(max(0, o))"
        case (let l?, let o): " LIMIT \(max(0, l)) OFFSET \(max(0, o))"
        }
    }

    // MARK: Writes

    /// `INSERT INTO <table> <rest>` that skips rows whose key or unique values are present.
    /// `rest` is the column list and the `VALUES` or `SELECT` (with a `WHERE`: SQLite needs
    /// one to tell the `SELECT`'s end from an `ON CONFLICT` clause).
    package func insertIgnoringDuplicates(into table: String, _ rest: SQLFragment) -> SQLFragment {
        switch engine {
        case .sqlite: "INSERT OR IGNORE INTO \(raw: table) \(rest)"
        case .postgreSQL: "INSERT INTO \(raw: table) \(rest) ON CONFLICT DO NOTHING"
        }
    }

    /// `INSERT INTO <table> (<key>, <columns>) VALUES (…)` that replaces the row holding the
    /// same `key`. For tables no other row refers to (metadata, cursors): SQLite's `REPLACE`
    /// deletes the old row first.
    package func upsert(into table: String, key: String, columns: [String], values: [StoredValue]) -> SQLFragment {
        let names = ([key] + columns).joined(separator: ", ")
        var placeholders = SQLFragment("")
        for (n, value) in values.enumerated() { placeholders = n == 0 ? "\(value)" : "\(placeholders), \(value)" }
        switch engine {
        case .sqlite:
            return "INSERT OR REPLACE INTO \(raw: table) (\(raw: names)) VALUES (\(placeholders))"
        case .postgreSQL:
            let updates = columns.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            return "INSERT INTO \(raw: table) (\(raw: names)) VALUES (\(placeholders)) ON CONFLICT (\(raw: key)) DO UPDATE SET \(raw: updates)"
        }
    }

    // MARK: Key lists

    /// `<column> NOT IN (…)` over a JSON array of integer keys bound as one text parameter,
    /// so the statement is the same (and cached) however many keys there are.
    package func excludesKeys(_ column: String) -> String {
        switch engine {
        case .sqlite: "\(column) NOT IN (SELECT value FROM json_each(?))"
        case .postgreSQL: "\(column) NOT IN (SELECT value::bigint FROM json_array_elements_text(?::json))"
        }
    }

    /// `<column> IN (…)` over `keys`, bound as one JSON array.
    package func includesKeys(_ column: String, _ keys: some Sequence<Int64>) -> SQLFragment {
        SQLFragment(includesKeys(column), [Self.keyList(keys)])
    }

    /// Integer keys as the one text parameter of ``includesKeys(_:)`` and ``excludesKeys(_:)``:
    /// a JSON array.
    package static func keyList(_ keys: some Sequence<Int64>) -> StoredValue {
        .string("[" + keys.map(String.init).joined(separator: ",") + "]")
    }

    /// `<column> IN (…)` over a JSON array of integer keys bound as one text parameter.
    package func includesKeys(_ column: String) -> String {
        switch engine {
        case .sqlite: "\(column) IN (SELECT value FROM json_each(?))"
        case .postgreSQL: "\(column) IN (SELECT value::bigint FROM json_array_elements_text(?::json))"
        }
    }
}
