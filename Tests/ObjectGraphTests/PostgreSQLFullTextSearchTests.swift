import Foundation
import Testing
import TestSupport
@testable import ObjectGraph
@testable import ObjectGraphPostgreSQL

/// What full-text search does on PostgreSQL beyond what the search suites check on every
/// store: the search reads the GIN index, a database written before the declaration (or
/// with other searchable attributes) gets it when the declaration appears, any writer keeps
/// the vector in step, and no typed text makes the server report an error.
@Suite(.enabled(if: TestStore.isPostgreSQLAvailable, "PostgreSQL is not installed: see PostgreSQLAvailabilityTests"))
struct PostgreSQLFullTextSearchTests {
    @Test func theSearchConditionReadsTheGINIndex() async throws {
        // Given a store with searchable invoices
        let location = TestStore.postgreSQL.makeLocation()
        let context = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator(model: Indexed.model))
        try await SearchStack.seed(context, client: "Acme", invoices: [("A-1", "acme widgets"), ("A-2", "gizmos")])

        // When the condition and rank a fetch sends are planned, sequential scans discouraged
        // (the table is small)
        let entity = try #require(Indexed.model.entity(named: "Invoice"))
        let search = PostgreSQLFullTextSearch.shared
        let condition = search.matchCondition(SearchQuery("acme wid*"), entity: entity)
        let db = try PostgreSQLContentionTests.connection(to: location)
        try db.execute("SET enable_seqscan = off")
        let plan = try db.query("EXPLAIN SELECT t0._pk FROM \"Invoice\" t0 WHERE \(condition) ORDER BY \(raw: search.rank(entity: entity))")
        let text = (0..<plan.rowCount).compactMap { plan.text($0, 0) }.joined(separator: "\n")

        // Then the index on the searchable attributes serves it
        #expect(text.contains("Bitmap Index Scan on \"_og_fts_Invoice\""), "\(text)")
        let found = try db.query("SELECT t0.identifier FROM \"Invoice\" t0 WHERE \(condition)")
        #expect(found.rowCount == 1 && found.text(0, 0) == "A-1")
    }

    @Test func aDatabaseWrittenBeforeTheDeclarationGetsTheIndexWhenItAppears() async throws {
        // Given a database written by the same model without `.searchable` (same hash)
        let location = TestStore.postgreSQL.makeLocation()
        let old = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator(model: Unindexed.model))
        try await old.perform {
            let invoice = Unindexed.Invoice(context: old)
            invoice.identifier = "OLD-1"
            invoice.notes = "written before the index"
            try old.save()
        }
        let db = try PostgreSQLContentionTests.connection(to: location)
        let indexes = "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE '\\_og\\_fts\\_%' ORDER BY 1"
        #expect(try db.query(SQLFragment(indexes)).rowCount == 0)

        // When it is opened with the declaration, twice
        let context = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator(model: Indexed.model))
        _ = try location.coordinator(model: Indexed.model)

        // Then both entities have their index, recording its attributes, and the old row is found
        let made = try db.query(SQLFragment(indexes))
        #expect((0..<made.rowCount).compactMap { made.text($0, 0) } == ["_og_fts_Client", "_og_fts_Invoice"])
        let comment = try db.query("SELECT obj_description('\"_og_fts_Invoice\"'::regclass, 'pg_class')")
        #expect(comment.text(0, 0) == "identifier,notes")
        #expect(try await SearchStack.identifiers(context, "before index") == ["OLD-1"])
    }

    @Test func anIndexOverOtherAttributesIsMadeAnewForTheDeclaredOnes() async throws {
        // Given a database whose invoices were indexed by their identifier only
        let location = TestStore.postgreSQL.makeLocation()
        let old = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator(model: IdentifierIndexed.model))
        try await old.perform {
            let invoice = IdentifierIndexed.Invoice(context: old)
            invoice.identifier = "N-1"
            invoice.notes = "zeppelin parts"
            try old.save()
            var request = FetchRequest<IdentifierIndexed.Invoice>()
            request.searchQuery = SearchQuery("zeppelin")
            #expect(try old.fetch(request).isEmpty)
        }

        // When the model declares the notes searchable too
        let context = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator(model: Indexed.model))

        // Then the index holds both, and the notes are found
        let db = try PostgreSQLContentionTests.connection(to: location)
        let comment = try db.query("SELECT obj_description('\"_og_fts_Invoice\"'::regclass, 'pg_class')")
        #expect(comment.text(0, 0) == "identifier,notes")
        #expect(try await SearchStack.identifiers(context, "zeppelin") == ["N-1"])
    }

    @Test func anEntityWhoseIndexNameIsCutByPostgreSQLOpensAgainAndSearches() async throws {
        // Given an entity whose index name is past PostgreSQL's 63 bytes
        let model = SearchStack.makeModel([NoteWithAVeryLongEntityNameThatRunsPastWhatPostgreSQLKeeps.self])
        let location = TestStore.postgreSQL.makeLocation()
        let context = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator(model: model))
        try await context.perform {
            NoteWithAVeryLongEntityNameThatRunsPastWhatPostgreSQLKeeps(context: context).title = "zeppelin"
            try context.save()
        }

        // When the store opens again, then it finds its index, and the search reads it
        let again = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator(model: model))
        let found = try await again.perform {
            var request = FetchRequest<NoteWithAVeryLongEntityNameThatRunsPastWhatPostgreSQLKeeps>()
            request.searchQuery = SearchQuery("zeppelin")
            return try again.fetch(request).map(\.title)
        }
        #expect(found == ["zeppelin"])
        let entity = try #require(model.entity(named: "NoteWithAVeryLongEntityNameThatRunsPastWhatPostgreSQLKeeps"))
        #expect(PostgreSQLFullTextSearch.indexName(entity).utf8.count == 63)
    }

    @Test func aProgramWithAnotherSearchPathKeepsTheVectorInStep() async throws {
        // Given a store with searchable invoices
        let location = TestStore.postgreSQL.makeLocation()
        let context = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator(model: Indexed.model))
        try await SearchStack.seed(context, client: "Acme", invoices: [("A-1", "acme widgets"), ("A-2", "gizmos")])

        // When a program that knows nothing of ObjectGraph, its search_path the default, writes
        // the notes of one in SQL
        let url = try PostgreSQLServer.shared.get().url()
        let other = try PostgreSQLConnection(conninfo: url, location: "test", sessionSetup: "SET client_min_messages TO warning")
        try other.execute("UPDATE \(SQLDialect.quote(location.schema)).\"Invoice\" SET notes = 'Zeppelin spare parts' WHERE identifier = 'A-2'")

        // Then the trigger, naming the store's configuration with its schema, filled the
        // vector: the new words are found, the old ones gone
        #expect(try await SearchStack.identifiers(context, "zeppelin") == ["A-2"])
        #expect(try await SearchStack.identifiers(context, "gizmos").isEmpty)
    }

    @Test func noTypedTextMakesTheServerReportAnError() async throws {
        // Given a store with invoices whose text is hostile too
        let location = TestStore.postgreSQL.makeLocation()
        let context = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator(model: Indexed.model))
        let long = String(repeating: "w", count: 3_000)
        try await SearchStack.seed(context, client: "Acme", invoices: [
            ("Q-1", "it's a \"quoted\" back\\slash & | ! ( ) : * <-> note"), ("Q-2", "acme \(long)"),
        ])
        let texts = SearchQueryTests.hostileInputs + [
            "'", "''", "\\", "\\'", "'\\", "&|!():*<->", "a & b | !c", "<->", "<2>", "a <-> b", "a:*", "a:A", "a:*AB",
            "it's", "back\\slash", "\\\\", "'; SELECT pg_sleep(10); --", "$1", "?", "\u{0}'\u{0}", long, "acme \(long)",
        ]
        // When each is searched, with every kind of prefix matching
        for text in texts {
            for prefix in [SearchQuery.PrefixMatching.starredWords, .lastWord, .everyWord] {
                // Then nothing throws
                await #expect(throws: Never.self, "\(text.prefix(40).debugDescription)") {
                    _ = try await SearchStack.identifiers(context, text, prefix: prefix)
                }
            }
        }
        // And quotes and backslashes are punctuation, as on SQLite
        #expect(try await SearchStack.identifiers(context, "it's") == ["Q-1"])
        #expect(try await SearchStack.identifiers(context, "back\\slash") == ["Q-1"])
        #expect(try await SearchStack.identifiers(context, "'quoted'") == ["Q-1"])
        // A word longer than PostgreSQL indexes matches nothing, and does not widen the search
        #expect(try await SearchStack.identifiers(context, "acme \(long)").isEmpty)
        #expect(try await SearchStack.identifiers(context, "acme") == ["Q-2"])
    }

    @Test func theQueryQuotesEveryTokenAndJoinsPhrasesAsTsquery() {
        #expect(PostgreSQLFullTextSearch.tsquery(SearchQuery("INV-2024-7 acme wid*")) == "'INV' <-> '2024' <-> '7' & 'acme' & 'wid':*")
        #expect(PostgreSQLFullTextSearch.tsquery(SearchQuery("it's")) == "'it' <-> 's'")
        #expect(PostgreSQLFullTextSearch.tsquery(SearchQuery("a " + String(repeating: "x", count: 2_047))) == "")
    }

    @Test func aUserWhoCannotCreateUnaccentStillSearchesFoldingCaseOnly() async throws {
        // Given a new database without `unaccent`, and a user who may create tables in its
        // public schema but not extensions (no CREATE on the database)
        let server = try PostgreSQLServer.shared.get()
        let url = try server.makeDatabase()
        let admin = try PostgreSQLConnection(conninfo: url, location: "test", sessionSetup: "SET client_min_messages TO warning")
        try admin.execute("""
            DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'og_no_extensions') THEN
                CREATE ROLE og_no_extensions LOGIN; END IF; END $$;
            GRANT CREATE ON SCHEMA public TO og_no_extensions
            """)
        let limited = url.replacingOccurrences(of: "postgresql://postgres@", with: "postgresql://og_no_extensions@")

        // When a store with searchable attributes opens there as that user
        let coordinator = PersistentStoreCoordinator(model: Indexed.model)
        try coordinator.addPostgreSQLStore(PostgreSQLStore.Configuration(url: limited))
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await SearchStack.seed(context, client: "Acme", invoices: [("Z-1", "Widgets from Zürich")])

        // Then the refusal did not stop it: searches fold case, and diacritics count
        #expect(try admin.query("SELECT 1 FROM pg_extension WHERE extname = 'unaccent'").rowCount == 0)
        #expect(try await SearchStack.identifiers(context, "ZÜRICH widgets") == ["Z-1"])
        #expect(try await SearchStack.identifiers(context, "zurich").isEmpty)
    }
}

/// `Indexed`'s entities with only the invoice's identifier searchable (the same model hash).
enum IdentifierIndexed {
    final class Client: ManagedObject {
        @Attribute(.required, .searchable) var name: String
        @Attribute var city: String?
        @Relationship(inverse: \Invoice.client, deleteRule: .cascade) var invoices: Set<Invoice>
    }

    final class Invoice: ManagedObject {
        @Attribute(.required, .searchable) var identifier: String
        @Attribute var notes: String?
        @Attribute var status: InvoiceStatus = .draft
        @Attribute var amount: Int = 0
        @Relationship var client: Client?
    }

    static let model = SearchStack.makeModel([Client.self, Invoice.self])
}

/// An entity whose index name (`_og_fts_` and its name) is longer than PostgreSQL keeps.
final class NoteWithAVeryLongEntityNameThatRunsPastWhatPostgreSQLKeeps: ManagedObject {
    @Attribute(.searchable) var title: String
}
