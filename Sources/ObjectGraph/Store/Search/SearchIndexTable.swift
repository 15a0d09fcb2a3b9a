/// The full-text index of one entity: an FTS5 table over its `.searchable` attributes, kept in
/// step with the entity's table by three triggers on that table.
///
/// ```sql
/// CREATE VIRTUAL TABLE "_og_fts_Invoice" USING fts5("identifier", "notes", content='Invoice',
///     content_rowid='_pk', tokenize='unicode61 remove_diacritics 2')
/// CREATE TRIGGER "_og_fts_Invoice_insert" AFTER INSERT ON "Invoice" BEGIN
///     INSERT INTO "_og_fts_Invoice"(rowid, "identifier", "notes") VALUES (new._pk, new."identifier", new."notes"); END
/// -- _delete: AFTER DELETE, the FTS5 'delete' command with the old values;
/// -- _update: AFTER UPDATE OF _pk and the searchable columns, when one of them changed: both.
/// ```
///
/// Why this shape:
/// - **External content** (`content='Invoice'`): the text lives once, in the entity's table;
///   the index holds only its tokens. FTS5's `'rebuild'` fills it from the table, which is
///   how a file written before the declaration gets indexed. (A contentless table could not
///   be rebuilt, and deleting from one needs SQLite 3.43; Debian's is 3.40.)
/// - **Triggers**, not writes in the store's code: every writer keeps the index in step
///   without knowing of it: saves, batch inserts, updates and deletes, the delete rules batch
///   deletes apply in SQL, another coordinator, another process, an older ObjectGraph, the
///   `sqlite3` shell. They run inside the writer's own statement, so the index commits or
///   rolls back with the rows. An external-content index must be told the *old* values of a
///   row it forgets, and the triggers see exactly those.
/// - The update trigger fires only when a searchable column (or the key) really changed, so
///   saving a new status or a row version costs no index write.
///
/// A write that bypasses triggers would leave the index stale; SQLite only does that for a
/// row deleted by `REPLACE` conflict resolution with `recursive_triggers` off (Debian builds
/// SQLite with it on; ObjectGraph never writes entity rows with `REPLACE`).
struct SearchIndexTable: Sendable {
    /// The tokenizer FTS5 indexes with; ``SearchTokenizer`` follows the same rules.
    static let tokenizer = "unicode61 remove_diacritics 2"

    let entity: String
    /// `_og_fts_Invoice`, unquoted.
    let name: String
    /// The quoted name, for SQL.
    let table: String
    /// The statements that make the index, each as `sqlite_master` records it (no final
    /// semicolon), by object name: the table first, then its triggers.
    let schema: [(name: String, sql: String)]

    /// The index of `entity`, or nil when it declares no searchable attribute.
    init?(entity: EntityDescription) {
        let attributes = entity.searchableAttributes
        guard !attributes.isEmpty else { return nil }
        self.init(entity: entity.name, name: SQLSchema.searchIndexName(entity.name),
                  columns: attributes.map(\.name), tokenizer: Self.tokenizer)
    }

    /// An FTS5 table named `name` over `columns` of `entity`'s table, with its triggers.
    init(entity: String, name: String, columns names: [String], tokenizer: String) {
        self.entity = entity
        self.name = name
        table = SQLSchema.quote(name)
        let content = SQLSchema.quote(entity)
        let columns = names.map { SQLSchema.quote($0) }
        let list = columns.joined(separator: ", ")
        let newValues = columns.map { "new.\($0)" }.joined(separator: ", ")
        let oldValues = columns.map { "old.\($0)" }.joined(separator: ", ")
        let add = "INSERT INTO \(table)(rowid, \(list)) VALUES (new._pk, \(newValues));"
        let remove = "INSERT INTO \(table)(\(table), rowid, \(list)) VALUES ('delete', old._pk, \(oldValues));"
        let changed = (["_pk"] + columns).map { "old.\($0) IS NOT new.\($0)" }.joined(separator: " OR ")
        let literal = "'" + entity.replacingOccurrences(of: "'", with: "''") + "'"
        schema = [
            (name, "CREATE VIRTUAL TABLE \(table) USING fts5(\(list), content=\(literal), content_rowid='_pk', tokenize='\(tokenizer)')"),
            (name + "_insert", "CREATE TRIGGER \(SQLSchema.quote(name + "_insert")) AFTER INSERT ON \(content) BEGIN \(add) END"),
            (name + "_delete", "CREATE TRIGGER \(SQLSchema.quote(name + "_delete")) AFTER DELETE ON \(content) BEGIN \(remove) END"),
            (name + "_update", "CREATE TRIGGER \(SQLSchema.quote(name + "_update")) AFTER UPDATE OF _pk, \(list) ON \(content) WHEN \(changed) BEGIN \(remove) \(add) END"),
        ]
    }

    /// Fills the index from the entity's table.
    var rebuildSQL: String { "INSERT INTO \(table)(\(table)) VALUES ('rebuild')" }
}
