import CSQLite
import Foundation
@testable import ObjectGraph

/// Clients and invoices whose names, identifiers and notes are searchable. The entities are
/// called `Client` and `Invoice`, as in `TestStack`, inside their own namespace.
enum Indexed {
    final class Client: ManagedObject {
        @Attribute(.required, .searchable) var name: String
        @Attribute var city: String?
        @Relationship(inverse: \Invoice.client, deleteRule: .cascade) var invoices: Set<Invoice>
    }

    final class Invoice: ManagedObject {
        @Attribute(.required, .searchable) var identifier: String
        @Attribute(.searchable) var notes: String?
        @Attribute var status: InvoiceStatus = .draft
        @Attribute var amount: Int = 0
        @Relationship var client: Client?
    }

    static let model = SearchStack.makeModel([Client.self, Invoice.self])
}

/// The same entities declaring nothing searchable: the model of files written before the
/// declaration (its hash is `Indexed.model`'s: `.searchable` is not part of it).
enum Unindexed {
    final class Client: ManagedObject {
        @Attribute(.required) var name: String
        @Attribute var city: String?
        @Relationship(inverse: \Invoice.client, deleteRule: .cascade) var invoices: Set<Invoice>
    }

    final class Invoice: ManagedObject {
        @Attribute(.required) var identifier: String
        @Attribute var notes: String?
        @Attribute var status: InvoiceStatus = .draft
        @Attribute var amount: Int = 0
        @Relationship var client: Client?
    }

    static let model = SearchStack.makeModel([Client.self, Invoice.self])
}

/// The shape of `objectgraph-fixture`'s model (one `Client` with a `name`), its name
/// searchable: the fixture process writes to the file knowing nothing of the index.
enum FixtureShaped {
    final class Client: ManagedObject {
        @Attribute(.searchable) var name: String
    }

    static let model = SearchStack.makeModel([Client.self])
}

enum SearchStack {
    static func makeModel(_ types: [ManagedObject.Type]) -> ManagedObjectModel {
        do { return try ManagedObjectModel(entities: types) } catch { fatalError("search test model: \(error)") }
    }

    static func coordinator(at url: URL, model: ManagedObjectModel = Indexed.model) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(.sqlite(at: url))
        return coordinator
    }

    static func store(of coordinator: PersistentStoreCoordinator) throws -> SQLiteStore {
        try coordinator.requireSQLiteStore()
    }

    /// Saves a client and its invoices (identifier, notes) in `context`; returns their IDs.
    @discardableResult
    static func seed(_ context: ManagedObjectContext, client name: String,
                     invoices: [(String, String?)] = [], status: InvoiceStatus = .draft) async throws -> [ObjectID] {
        try await context.perform {
            let client = Indexed.Client(context: context)
            client.name = name
            let made = invoices.map { identifier, notes in
                let invoice = Indexed.Invoice(context: context)
                invoice.identifier = identifier
                invoice.notes = notes
                invoice.status = status
                invoice.client = client
                return invoice
            }
            try context.save()
            return [client.objectID] + made.map(\.objectID)
        }
    }

    /// Identifiers of the invoices a search finds, in the order the fetch returns them.
    static func identifiers(_ context: ManagedObjectContext, _ text: String,
                            prefix: SearchQuery.PrefixMatching = .starredWords,
                            predicate: Predicate<Indexed.Invoice>? = nil,
                            configure: @escaping @Sendable (inout FetchRequest<Indexed.Invoice>) -> Void = { _ in }) async throws -> [String] {
        try await context.perform {
            var request = FetchRequest<Indexed.Invoice>(predicate: predicate)
            request.searchQuery = SearchQuery(text, prefixMatching: prefix)
            configure(&request)
            return try context.fetch(request).map(\.identifier)
        }
    }
}

/// A plain SQLite connection to a store's file, beside ObjectGraph: what another program
/// (the `sqlite3` shell, an older version) would do, and a way to look at the index itself.
final class RawDatabase {
    struct Failure: Error, CustomStringConvertible { let description: String }

    private let db: OpaquePointer

    init(_ url: URL) throws {
        var handle: OpaquePointer?
        guard sqlite3_open(url.path, &handle) == SQLITE_OK, let handle else { throw Failure(description: "open \(url.path)") }
        db = handle
        sqlite3_busy_timeout(db, 5_000)
    }

    deinit { sqlite3_close(db) }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw Failure(description: "\(String(cString: sqlite3_errmsg(db))) in \(sql)")
        }
    }

    /// The first column of every row, as text.
    func strings(_ sql: String) throws -> [String] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Failure(description: "\(String(cString: sqlite3_errmsg(db))) in \(sql)")
        }
        defer { sqlite3_finalize(statement) }
        var values: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            values.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "NULL")
        }
        return values
    }

    /// Whether the entity's full-text index holds exactly the tokens of its rows: FTS5's
    /// integrity check against the content table (`rank` 1), which fails on any stale entry.
    func searchIndexIsInStep(_ entity: String) -> Bool {
        let table = "\"_og_fts_\(entity)\""
        return sqlite3_exec(db, "INSERT INTO \(table)(\(table), rank) VALUES ('integrity-check', 1)", nil, nil, nil) == SQLITE_OK
    }

    /// Primary keys of the entity's rows whose indexed text matches `expression` (FTS5 syntax).
    func indexedKeys(_ entity: String, matching expression: String) throws -> [String] {
        try strings("SELECT rowid FROM \"_og_fts_\(entity)\" WHERE \"_og_fts_\(entity)\" MATCH '\(expression)' ORDER BY rowid")
    }
}
