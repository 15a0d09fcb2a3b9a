import Foundation
import ObjectGraph

/// A trigram index (PostgreSQL's `pg_trgm`) on `lower(attribute)`, which the store's
/// case-insensitive substring tests (`localizedStandardContains` in a predicate) use instead
/// of reading every row: PostgreSQL's counterpart of a search box's index.
///
/// Substring, not full-text: a search for "acm" finds "ACME Ltd" and "INV-2024-0012" finds
/// itself, as the same predicate does on SQLite and in memory; PostgreSQL's full-text search
/// would match whole words only, and would answer differently from the other stores.
///
/// Declare it in the model, once for every store: `@Attribute(.indexedForSubstringSearch)`
/// (SQLite keeps an FTS5 trigram table instead). The configuration can add more:
///
/// ```swift
/// var configuration = PostgreSQLStore.Configuration(url: url)
/// configuration.substringSearchIndexes = [SubstringSearchIndex(entity: "Client", attribute: "name")]
/// ```
public struct SubstringSearchIndex: Sendable, Hashable {
    public var entity: String
    /// A string attribute of the entity.
    public var attribute: String

    public init(entity: String, attribute: String) {
        self.entity = entity
        self.attribute = attribute
    }

    /// The index's name in the database.
    var name: String { "\(entity)_\(attribute)_trgm" }

    /// The indexes `model` declares with `@Attribute(.indexedForSubstringSearch)`.
    static func declared(in model: ManagedObjectModel) -> [SubstringSearchIndex] {
        model.entities.flatMap { entity in
            entity.substringIndexedAttributes.map { SubstringSearchIndex(entity: entity.name, attribute: $0.name) }
        }
    }

    /// Creates the indexes that are missing (and the `pg_trgm` extension), inside the schema's
    /// opening transaction: those `model` declares, and `configured` besides.
    /// - Throws: ``StoreError/invalidConfiguration(_:)`` for an index of an unknown or
    ///   non-string attribute, ``StoreError/unsupported(_:)`` when `pg_trgm` is not installed.
    static func create(_ configured: [SubstringSearchIndex], model: ManagedObjectModel, in db: PostgreSQLConnection) throws {
        let declared = declared(in: model)
        let indexes = declared + configured.filter { !declared.contains($0) }
        guard !indexes.isEmpty else { return }
        for index in indexes {
            guard let attribute = model.entity(named: index.entity)?.attribute(named: index.attribute),
                  attribute.type == .string else {
                throw StoreError.invalidConfiguration("the substring search index on \(index.entity).\(index.attribute) names no string attribute of the model")
            }
        }
        let schema = try trigramSchema(in: db)
        for index in indexes {
            try db.execute("""
                CREATE INDEX IF NOT EXISTS \(SQLDialect.quote(index.name)) ON \(SQLDialect.quote(index.entity))
                USING gin (lower(\(SQLDialect.quote(index.attribute))) \(schema).gin_trgm_ops)
                """)
        }
    }

    /// The schema `pg_trgm` is in, after creating the extension when needed (once, however
    /// many stores open at the same moment).
    private static func trigramSchema(in db: PostgreSQLConnection) throws -> String {
        if let schema = try installedSchema(in: db) { return schema }
        try db.run("SELECT pg_advisory_xact_lock(hashtext('objectgraph.pg_trgm'))")
        do {
            try db.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        } catch StoreError.server(let state, let message, _) {
            throw StoreError.unsupported("substring search indexes need PostgreSQL's pg_trgm extension, which this server cannot create (SQLSTATE \(state): \(message)). Install the server's contrib modules (Debian: postgresql-contrib), or have a superuser run CREATE EXTENSION pg_trgm in the database")
        }
        return try installedSchema(in: db) ?? "public"
    }

    private static func installedSchema(in db: PostgreSQLConnection) throws -> String? {
        let found = try db.query("""
            SELECT quote_ident(n.nspname) FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
            WHERE e.extname = 'pg_trgm'
            """)
        return found.rowCount > 0 ? found.text(0, 0) : nil
    }
}
