import Foundation
import Testing
@testable import ObjectGraph

/// The full-text index as a file holds it: made from the declarations, built once for rows
/// written before them, and refused with a clear error where SQLite cannot have one.
@Suite struct SearchIndexTests {
    @Test func declaringSearchableAttributesCreatesAnIndexAndItsTriggers() async throws {
        // Given a new file opened with a model that declares searchable attributes
        let url = TestStack.fileURL()
        let coordinator = try SearchStack.coordinator(at: url)

        // Then each entity has an FTS5 table over exactly its searchable columns, and triggers
        let raw = try RawDatabase(url)
        let tables = try raw.strings("SELECT sql FROM sqlite_master WHERE name = '_og_fts_Invoice'")
        #expect(tables.count == 1)
        #expect(tables.first?.contains("fts5(\"identifier\", \"notes\", content='Invoice'") == true)
        #expect(try raw.strings("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name") == [
            "_og_fts_Client_delete", "_og_fts_Client_insert", "_og_fts_Client_update",
            "_og_fts_Invoice_delete", "_og_fts_Invoice_insert", "_og_fts_Invoice_update",
        ])
        #expect(try SearchStack.store(of: coordinator).builtSearchIndexes.sorted() == ["Client", "Invoice"])
        #expect(Indexed.model.entity(named: "Invoice")?.searchableAttributes.map(\.name) == ["identifier", "notes"])
    }

    @Test func aFileWrittenBeforeTheDeclarationIsIndexedOnceWhenOpened() async throws {
        // Given a file with rows, written by a model that declares nothing searchable
        let url = TestStack.fileURL()
        do {
            let old = try SearchStack.coordinator(at: url, model: Unindexed.model)
            let context = ManagedObjectContext(.privateQueue, coordinator: old)
            try await context.perform {
                let client = Unindexed.Client(context: context)
                client.name = "Acme Corporation"
                for n in 1...3 {
                    let invoice = Unindexed.Invoice(context: context)
                    invoice.identifier = "INV-\(n)"
                    invoice.notes = n == 2 ? "rush delivery" : nil
                    invoice.client = client
                }
                try context.save()
            }
            #expect(try RawDatabase(url).strings("SELECT name FROM sqlite_master WHERE name LIKE '_og_fts%'").isEmpty)
        }

        // When the model that declares them opens it
        let coordinator = try SearchStack.coordinator(at: url)

        // Then the old rows are found, and the index is in step with them
        #expect(try SearchStack.store(of: coordinator).builtSearchIndexes.sorted() == ["Client", "Invoice"])
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        #expect(try await SearchStack.identifiers(context, "rush") == ["INV-2"])
        #expect(try await context.perform {
            var request = FetchRequest<Indexed.Client>()
            request.searchQuery = SearchQuery("corporation")
            return try context.fetch(request).map(\.name)
        } == ["Acme Corporation"])
        #expect(try RawDatabase(url).searchIndexIsInStep("Invoice"))

        // And opening it again builds nothing
        let again = try SearchStack.coordinator(at: url)
        #expect(try SearchStack.store(of: again).builtSearchIndexes.isEmpty)
    }

    @Test func aModelWithoutTheDeclarationLeavesTheIndexAloneAndItsWritesStillReachIt() async throws {
        // Given a file indexed by the searchable model
        let url = TestStack.fileURL()
        _ = try SearchStack.coordinator(at: url)

        // When a model that declares nothing searchable opens it and saves a row
        let old = try SearchStack.coordinator(at: url, model: Unindexed.model)
        #expect(try SearchStack.store(of: old).builtSearchIndexes.isEmpty)
        let context = ManagedObjectContext(.privateQueue, coordinator: old)
        try await context.perform {
            let client = Unindexed.Client(context: context)
            client.name = "Globex"
            let invoice = Unindexed.Invoice(context: context)
            invoice.identifier = "G-1"
            invoice.notes = "written by the old model"
            invoice.client = client
            try context.save()
        }

        // Then the index is still there, holds the row, and the searchable model finds it
        // without rebuilding
        let raw = try RawDatabase(url)
        #expect(try raw.indexedKeys("Invoice", matching: "old") == ["1"])
        #expect(raw.searchIndexIsInStep("Invoice"))
        let coordinator = try SearchStack.coordinator(at: url)
        #expect(try SearchStack.store(of: coordinator).builtSearchIndexes.isEmpty)
        #expect(try await SearchStack.identifiers(ManagedObjectContext(.privateQueue, coordinator: coordinator), "old model") == ["G-1"])
    }

    @Test func anIndexInAnotherShapeIsRebuiltToTheDeclaredOne() async throws {
        // Given a file whose invoice index covers the notes only (made by hand, as another
        // version of the model could have), with a stale trigger set
        let url = TestStack.fileURL()
        _ = try SearchStack.coordinator(at: url, model: Unindexed.model)
        let raw = try RawDatabase(url)
        try raw.execute("""
            INSERT INTO "Client" (_pk, _version, name) VALUES (1, 1, 'Acme');
            INSERT INTO "Invoice" (_pk, _version, identifier, notes, status, amount, client) VALUES (1, 1, 'A-1', 'first', 'draft', 0, 1);
            CREATE VIRTUAL TABLE "_og_fts_Invoice" USING fts5("notes", content='Invoice', content_rowid='_pk');
            """)

        // When the searchable model opens it
        let coordinator = try SearchStack.coordinator(at: url)

        // Then the invoice index is remade over identifier and notes, and filled
        #expect(try SearchStack.store(of: coordinator).builtSearchIndexes.sorted() == ["Client", "Invoice"])
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        #expect(try await SearchStack.identifiers(context, "A-1") == ["A-1"])
        #expect(try await SearchStack.identifiers(context, "first") == ["A-1"])
        #expect(raw.searchIndexIsInStep("Invoice"))
    }

    @Test func aMissingTriggerIsPutBackAndTheIndexRebuilt() async throws {
        // Given an indexed file whose update trigger someone dropped, then changed a row
        let url = TestStack.fileURL()
        let first = try SearchStack.coordinator(at: url)
        try await SearchStack.seed(ManagedObjectContext(.privateQueue, coordinator: first), client: "Acme", invoices: [("A-1", "before")])
        let raw = try RawDatabase(url)
        try raw.execute("DROP TRIGGER \"_og_fts_Invoice_update\"; UPDATE \"Invoice\" SET notes = 'after'")
        #expect(!raw.searchIndexIsInStep("Invoice"))

        // When the searchable model opens it again
        let coordinator = try SearchStack.coordinator(at: url)

        // Then the trigger is back and the index holds what the rows hold
        #expect(try SearchStack.store(of: coordinator).builtSearchIndexes == ["Invoice"])
        // (a new connection: the one whose check failed keeps FTS5's error state once)
        #expect(try RawDatabase(url).searchIndexIsInStep("Invoice"))
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        #expect(try await SearchStack.identifiers(context, "after") == ["A-1"])
        #expect(try await SearchStack.identifiers(context, "before").isEmpty)
    }

    @Test func aSearchableAttributeAddedByMigrationJoinsTheIndex() async throws {
        // Given a file of notes with a searchable title
        let url = TestStack.fileURL()
        let first = ManagedObjectContext(.privateQueue, coordinator: try SearchStack.coordinator(at: url, model: NotesV1.model))
        try await first.perform {
            NotesV1.Note(context: first).title = "alpha"
            try first.save()
        }

        // When a model that adds a searchable body opens it (an optional attribute: migrated in place)
        let coordinator = try SearchStack.coordinator(at: url, model: NotesV2.model)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let note = NotesV2.Note(context: context)
            note.title = "second"
            note.body = "bravo"
            try context.save()
        }

        // Then the index covers both attributes, old rows included
        #expect(try SearchStack.store(of: coordinator).builtSearchIndexes == ["Note"])
        let found = try await context.perform {
            try ["alpha", "bravo"].map { text in
                var request = FetchRequest<NotesV2.Note>()
                request.searchQuery = SearchQuery(text)
                return try context.fetch(request).map(\.title)
            }
        }
        #expect(found == [["alpha"], ["second"]])
        #expect(try RawDatabase(url).searchIndexIsInStep("Note"))
    }

    @Test func anSQLiteWithoutFTS5RefusesSearchableModelsSayingWhatToDo() throws {
        // Given the compile options of an SQLite built without FTS5
        let options = ["COMPILER=gcc-12.2.0", "ENABLE_FTS3", "ENABLE_FTS4", "THREADSAFE=1"]

        // Then a model with searchable attributes is refused with a typed error that says why
        #expect(throws: StoreError.fullTextSearchUnavailable(path: "/tmp/x.sqlite")) {
            try SQLiteStore.requireFullTextSearch(compileOptions: options, path: "/tmp/x.sqlite")
        }
        let message = StoreError.fullTextSearchUnavailable(path: "/tmp/x.sqlite").description
        #expect(message.contains("FTS5") && message.contains("ENABLE_FTS5") && message.contains("remove .searchable"))
        // And this machine's SQLite has it
        try SQLiteStore.requireFullTextSearch(compileOptions: options + ["ENABLE_FTS5"], path: "/tmp/x.sqlite")
    }

    @Test func onlyStringAttributesNotNamedRankOrRowidCanBeSearchable() {
        final class Counted: ManagedObject {
            @Attribute(.searchable) var count: Int = 0
        }
        final class Ranked: ManagedObject {
            @Attribute(.searchable) var rank: String
        }
        #expect(throws: ModelError.unsupportedDeclaration(
            entity: "Counted",
            reason: "count is .searchable but holds int values; full-text search indexes String attributes only")) {
            try ManagedObjectModel(entities: [Counted.self])
        }
        #expect(throws: ModelError.self) { try ManagedObjectModel(entities: [Ranked.self]) }
    }

    @Test(arguments: TestStore.all) func searchingAnEntityWithoutSearchableAttributesIsATypedError(_ store: TestStore) async throws {
        let coordinator = try store.coordinator(model: Unindexed.model)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        await #expect(throws: FetchError.self) {
            try await context.perform {
                var request = FetchRequest<Unindexed.Invoice>()
                request.searchQuery = SearchQuery("acme")
                _ = try context.fetch(request)
            }
        }
        let message = FetchError.notSearchable("Invoice").description
        #expect(message.contains("@Attribute(.searchable)"))
    }
}

/// Notes before and after a migration that adds a searchable attribute.
enum NotesV1 {
    final class Note: ManagedObject {
        @Attribute(.searchable) var title: String
    }

    static let model = SearchStack.makeModel([Note.self])
}

enum NotesV2 {
    final class Note: ManagedObject {
        @Attribute(.searchable) var title: String
        @Attribute(.searchable) var body: String?
    }

    static let model = SearchStack.makeModel([Note.self])
}
