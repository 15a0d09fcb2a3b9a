import CSQLite
import Foundation

/// Making the file's full-text indexes match the model's `.searchable` declarations when the
/// store opens.
extension SQLiteStore {
    /// Creates each declared index the file lacks, or holds in another shape (other columns,
    /// a missing trigger), and fills it from the entity's rows, all in one write transaction:
    /// the full-text indexes of `.searchable` attributes and the substring indexes of
    /// `.indexedForSubstringSearch` ones. An index already in its declared shape is left
    /// alone, so opening a file again writes nothing. An entity that declares no such
    /// attribute keeps any index the file has (a model of another version may still search
    /// it; its triggers keep it in step).
    ///
    /// - Returns: the indexes that were built.
    /// - Throws: ``StoreError/busy(path:timeout:)`` when another process holds the write
    ///   lock past the busy timeout.
    static func prepareSearchIndexes(model: ManagedObjectModel, in db: SQLiteConnection) throws -> [SearchIndexTable] {
        let declared = model.entities.compactMap(SearchIndexTable.init(entity:))
            + model.entities.compactMap(SearchIndexTable.init(substringsOf:))
        guard !declared.isEmpty else { return [] }
        guard try !outdatedIndexes(declared, in: db).isEmpty else { return [] }
        return try db.transaction {
            // Again under the write lock: another process opening the file at the same time
            // may have just built them.
            let outdated = try outdatedIndexes(declared, in: db)
            for index in outdated { try build(index, in: db) }
            return outdated
        }
    }

    /// Checks, before anything is written, that SQLite can index what `model` declares
    /// searchable.
    /// - Throws: ``StoreError/fullTextSearchUnavailable(path:)`` when the model declares
    ///   searchable attributes and this SQLite was built without FTS5.
    static func requireFullTextSearch(for model: ManagedObjectModel, in db: SQLiteConnection) throws {
        let substrings = model.entities.contains { !$0.substringIndexedAttributes.isEmpty }
        guard substrings || model.entities.contains(where: { !$0.searchableIndices.isEmpty }) else { return }
        try requireFullTextSearch(compileOptions: compileOptions(of: db), path: db.path)
        if substrings && !SearchIndexTable.hasTrigramTokenizer {
            throw StoreError.unsupported("\(db.path) cannot be opened with this model: it declares .indexedForSubstringSearch attributes, which need the trigram tokenizer of SQLite 3.34 or later, and this process uses SQLite \(String(cString: sqlite3_libversion())). Use a newer SQLite, or remove .indexedForSubstringSearch from the model. Nothing was written to the file.")
        }
    }

    /// Throws unless `compileOptions` (as `PRAGMA compile_options` lists them) include FTS5.
    static func requireFullTextSearch(compileOptions: [String], path: String) throws {
        guard compileOptions.contains("ENABLE_FTS5") else {
            throw StoreError.fullTextSearchUnavailable(path: path)
        }
    }

    private static func compileOptions(of db: SQLiteConnection) throws -> [String] {
        let statement = try db.statement("PRAGMA compile_options")
        defer { statement.reset() }
        var options: [String] = []
        while try statement.step() { if let option = statement.string(at: 0) { options.append(option) } }
        return options
    }

    /// The declared indexes whose table or triggers the file lacks, or holds with other SQL.
    private static func outdatedIndexes(_ declared: [SearchIndexTable], in db: SQLiteConnection) throws -> [SearchIndexTable] {
        let statement = try db.statement("SELECT name, sql FROM sqlite_master WHERE type IN ('table', 'trigger') AND (name LIKE '\\_og\\_fts\\_%' ESCAPE '\\' OR name LIKE '\\_og\\_trigram\\_%' ESCAPE '\\')")
        defer { statement.reset() }
        var existing: [String: String] = [:]
        while try statement.step() {
            if let name = statement.string(at: 0) { existing[name] = statement.string(at: 1) ?? "" }
        }
        return declared.filter { index in index.schema.contains { existing[$0.name] != $0.sql } }
    }

    /// Drops whatever is left of the index, makes it anew and fills it from the rows.
    private static func build(_ index: SearchIndexTable, in db: SQLiteConnection) throws {
        for (name, _) in index.schema.dropFirst() { try db.execute("DROP TRIGGER IF EXISTS \(SQLSchema.quote(name))") }
        try db.execute("DROP TABLE IF EXISTS \(index.table)")
        for (_, sql) in index.schema { try db.execute(sql) }
        try db.execute(index.rebuildSQL)
    }
}
