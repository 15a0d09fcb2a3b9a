import CSQLite

/// The substring index of one entity on SQLite: an FTS5 table with the `trigram` tokenizer
/// over its `.indexedForSubstringSearch` attributes, the entity's table as external content,
/// kept in step by the same three triggers as the full-text index (see ``SearchIndexTable``).
///
/// ```sql
/// CREATE VIRTUAL TABLE "_og_trigram_Invoice" USING fts5("identifier", "notes", content='Invoice',
///     content_rowid='_pk', tokenize='trigram case_sensitive 0')
/// ```
///
/// A case-insensitive substring test on an indexed attribute (`localizedStandardContains`,
/// which SQLite tests as `instr(lower(text), lower(term)) > 0`) becomes
///
/// ```sql
/// (t0._pk IN (SELECT rowid FROM "_og_trigram_Invoice" WHERE "notes" MATCH '"term"')
///  AND instr(lower(t0."notes"), lower(?)) > 0)
/// ```
///
/// Why this shape:
/// - **The phrase finds candidates, the scan's own test decides.** The tokenizer folds case
///   for all of Unicode (`É` matches `é`) where SQLite's `lower()` folds ASCII only, so the
///   index finds a superset of the rows the test accepts (folding maps each character alone,
///   so folded text still contains the folded term), and the unchanged test, run on those
///   rows only, keeps the results exactly those of the scan: non-ASCII case, `%`, `_` and `\`
///   included. Diacritics are not removed (`remove_diacritics` needs SQLite 3.45, and the
///   scan does not ignore them either).
/// - **`MATCH` with a quoted phrase, not `LIKE`.** FTS5 reads its index for `col LIKE
///   '%term%'` only without an `ESCAPE` clause, so a term holding `%` or `_` could not use
///   it; a phrase takes any text (`"` doubled). Both cost the same where both work.
/// - **Terms of at least three characters.** A trigram index has nothing to say about a
///   shorter term (FTS5 would match no row): the translator keeps the scan for those.
extension SearchIndexTable {
    /// The tokenizer of substring indexes.
    static let trigramTokenizer = "trigram case_sensitive 0"
    /// The shortest term (in Unicode scalars) the index can look up.
    static let minimumSubstringTermLength = 3
    /// Debian 12's SQLite is 3.40; `trigram` came with 3.34.
    static let trigramMinimumVersion: Int32 = 3_034_000

    /// The substring index of `entity`, or nil when it declares no such attribute.
    init?(substringsOf entity: EntityDescription) {
        let attributes = entity.substringIndexedAttributes
        guard !attributes.isEmpty else { return nil }
        self.init(entity: entity.name, name: SQLSchema.substringIndexName(entity.name),
                  columns: attributes.map(\.name), tokenizer: Self.trigramTokenizer)
    }

    /// The FTS5 query that finds rows whose text in any of `quotedColumns` contains `term`
    /// (folded as the tokenizer folds): one phrase, restricted to the column (`"notes" :
    /// "term"`) or the set of columns (`{"name" "email"} : "term"`, so that the index reads
    /// the phrase's trigrams once for them all). Columns are quoted for SQL, which is how
    /// FTS5 quotes them too. Nil for a term the index cannot look up (shorter than three
    /// characters, or holding NUL).
    static func substringQuery(_ term: String, quotedColumns: [String]) -> String? {
        guard term.unicodeScalars.count >= minimumSubstringTermLength, !term.utf8.contains(0),
              let first = quotedColumns.first else { return nil }
        let columns = quotedColumns.count == 1 ? first : "{" + quotedColumns.joined(separator: " ") + "}"
        return "\(columns) : \(SQLSchema.quote(term))"
    }

    /// Whether this process's SQLite has the `trigram` tokenizer.
    static var hasTrigramTokenizer: Bool { sqlite3_libversion_number() >= trigramMinimumVersion }
}
