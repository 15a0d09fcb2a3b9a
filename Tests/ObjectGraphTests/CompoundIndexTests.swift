import Foundation
import Testing
@testable import ObjectGraph

/// Compound indexes (`indexes`): declared on the entity's class, created when a store opens,
/// dropped when no longer declared, and read by fetches and counts that filter by the first
/// column and sort by the next (the test model declares `(status, issueDate)` on Invoice).
@Suite struct CompoundIndexTests {
    static let statusAndIssueDate = "_og_index:Invoice(status,issueDate)"

    /// The query plan SQLite makes for `sql` on the file, one line per step.
    private static func plan(_ sql: String, at url: URL) throws -> String {
        try RawSQLite.rows("EXPLAIN QUERY PLAN " + sql, at: url).map { $0[3] ?? "" }.joined(separator: "\n")
    }

    /// The SQL a fetch of `request` runs, as FetchPlan builds it.
    private static func fetchSQL(_ request: FetchRequest<Invoice>, coordinator: PersistentStoreCoordinator) throws -> String {
        let plan = try FetchPlan(request, model: coordinator.model, dialect: .sqlite)
        let store = try coordinator.requireSQLiteStore()
        return SQLiteStore.select("t0._pk", from: store.table(for: plan.entity), where: plan.condition,
                                  orderBy: plan.orderBy, limit: request.fetchLimit, offset: request.fetchOffset)
    }

    /// The first page of sent invoices by issue date.
    private static func sentByIssueDate(_ order: SortOrder) -> FetchRequest<Invoice> {
        let sent = InvoiceStatus.sent
        return FetchRequest<Invoice>(predicate: #Predicate { $0.status == sent },
                                     sortBy: [SortDescriptor(\.issueDate, order: order)], fetchLimit: 50)
    }

    @Test func sentInvoicesSortedByIssueDateAreReadInIndexOrderEitherWay() async throws {
        let url = TestStack.fileURL()
        let coordinator = try await AggregateTests.seededCoordinator(at: url)
        for order in [SortOrder.forward, .reverse] {
            let sql = try Self.fetchSQL(Self.sentByIssueDate(order), coordinator: coordinator)
            let plan = try Self.plan(sql, at: url)
            #expect(plan.contains(Self.statusAndIssueDate), "\(sql)\n\(plan)")
            #expect(!plan.contains("TEMP B-TREE"), "\(sql)\n\(plan)")
            let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
            let identifiers = try await context.perform { try context.fetch(Self.sentByIssueDate(order)).map(\.identifier) }
            let ascending = ["A-1", "A-3", "G-1", "I-2"]
            #expect(identifiers == (order == .forward ? ascending : ascending.reversed()))
        }
    }

    @Test func aCountOfSentInvoicesReadsOnlyTheIndex() async throws {
        let url = TestStack.fileURL()
        let coordinator = try await AggregateTests.seededCoordinator(at: url)
        let sent = InvoiceStatus.sent
        let plan = try FetchPlan(FetchRequest<Invoice>(predicate: #Predicate { $0.status == sent }), model: coordinator.model, dialect: .sqlite)
        let sql = #"SELECT COUNT(*) FROM "Invoice" t0 WHERE "# + (plan.condition?.sql ?? "")
        #expect(try Self.plan(sql, at: url).contains("COVERING INDEX \(Self.statusAndIssueDate)"))
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let count = try await context.perform { try context.count(for: FetchRequest<Invoice>(predicate: #Predicate { $0.status == sent })) }
        #expect(count == 4)
    }

    @Test(arguments: TestStore.all) func equalKeysComeByPrimaryKeyInTheLastKeysDirectionFromSQLAndFromMemory(_ store: TestStore) async throws {
        let coordinator = try await AggregateTests.seeded(store)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            for invoice in try context.fetch(FetchRequest<Invoice>()) { invoice.issueDate = AggregateTests.day(1) }
            try context.save()
            let newestFirst = FetchRequest<Invoice>(sortBy: [SortDescriptor(\.issueDate, order: .reverse)])
            let fromSQL = try context.fetch(newestFirst).map(\.identifier)
            #expect(fromSQL == ["I-2", "I-1", "G-1", "A-3", "A-2", "A-1"])
            // An unsaved change to an invoice makes the fetch sort in memory: the same order.
            try #require(try context.fetch(FetchRequest<Invoice>(predicate: #Predicate { $0.identifier == "A-2" })).first)
                .notes = "changed"
            #expect(try context.fetch(newestFirst).map(\.identifier) == fromSQL)
            let oldestFirst = FetchRequest<Invoice>(sortBy: [SortDescriptor(\.issueDate)])
            #expect(try context.fetch(oldestFirst).map(\.identifier) == fromSQL.reversed())
        }
    }

    // MARK: Declaring and removing

    enum Unindexed {
        final class Note: ManagedObject {
            @Attribute var title: String
            @Attribute var created: Date = Date(timeIntervalSince1970: 0)
            @Relationship var folder: Folder?
        }
        final class Folder: ManagedObject {
            @Attribute var name: String
            @Relationship(inverse: \Note.folder) var notes: Set<Note>
        }
        static let model = makeModel([Note.self, Folder.self])
    }

    enum Indexed {
        final class Note: ManagedObject {
            @Attribute(.indexed) var title: String
            @Attribute var created: Date = Date(timeIntervalSince1970: 0)
            @Relationship var folder: Folder?
            override class var indexes: [[AnyKeyPath]] { [[\Note.folder, \Note.created], [\Note.title, \Note.created]] }
        }
        final class Folder: ManagedObject {
            @Attribute var name: String
            @Relationship(inverse: \Note.folder) var notes: Set<Note>
        }
        static let model = makeModel([Note.self, Folder.self])
    }

    enum IndexedToMany {
        final class Book: ManagedObject {
            @Attribute var title: String
            @Relationship var shelf: Shelf?
        }
        final class Shelf: ManagedObject {
            @Attribute var name: String
            @Relationship(inverse: \Book.shelf) var books: Set<Book>
            override class var indexes: [[AnyKeyPath]] { [[\Shelf.books]] }
        }
    }

    enum IndexedComputed {
        final class Shelf: ManagedObject {
            @Attribute var name: String
            var shout: String { name.uppercased() }
            override class var indexes: [[AnyKeyPath]] { [[\Shelf.shout]] }
        }
    }

    private static func makeModel(_ types: [ManagedObject.Type]) -> ManagedObjectModel {
        do { return try ManagedObjectModel(entities: types) } catch { fatalError("model: \(error)") }
    }

    @Test(arguments: TestStore.shared)
    func aStoreMadeWithoutTheIndexGetsItWhenAModelDeclaringItOpensIt(_ store: TestStore) throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        _ = try location.coordinator(model: Unindexed.model)
        let declared: Set = ["_og_index:Note(folder,created)", "_og_index:Note(title,created)", "Note_title_index"]
        #expect(try location.indexNames().isDisjoint(with: declared))
        #expect(Unindexed.model.versionHash == Indexed.model.versionHash)

        _ = try location.coordinator(model: Indexed.model)
        #expect(try location.indexNames().isSuperset(of: declared))
        #expect(Indexed.model.entity(named: "Note")?.indexes == [["folder", "created"], ["title", "created"]])
        if let url = location.url {
            let plan = try Self.plan(#"SELECT _pk FROM "Note" WHERE "title" = 'x' ORDER BY "created""#, at: url)
            #expect(plan.contains("_og_index:Note(title,created)") && !plan.contains("TEMP B-TREE"), "\(plan)")
        }
        // Reopening with the same declarations writes nothing.
        let before = try StoreState.contents(of: location)
        _ = try location.coordinator(model: Indexed.model)
        #expect(try StoreState.contents(of: location) == before)
    }

    @Test(arguments: TestStore.shared)
    func anIndexNoLongerDeclaredIsDroppedAndOthersAreLeftAlone(_ store: TestStore) throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        _ = try location.coordinator(model: Indexed.model)
        try location.execute(#"CREATE INDEX "mine" ON "Note"("title")"#)
        #expect(try location.indexNames().contains("Note_title_index"))
        _ = try location.coordinator(model: Unindexed.model)
        let names = try location.indexNames()
        #expect(!names.contains { $0.hasPrefix("_og_index:") })
        #expect(!names.contains("Note_title_index"), "an attribute no longer .indexed loses its index")
        #expect(names.contains("mine") && names.contains("Note_folder"), "\(names)")
    }

    @Test func anIndexOverAToManyRelationshipOrAComputedPropertyIsRefused() {
        #expect(throws: ModelError.unsupportedDeclaration(
            entity: "Shelf",
            reason: "its index on books names a to-many relationship, which has no column; declare the index on Book, over its to-one inverse")) {
            _ = try ManagedObjectModel(entities: [IndexedToMany.Book.self, IndexedToMany.Shelf.self])
        }
        #expect(throws: ModelError.unresolvableKeyPath(entity: "Shelf", keyPath: "\\Shelf.<computed String property>")) {
            _ = try ManagedObjectModel(entities: [IndexedComputed.Shelf.self])
        }
    }
}
