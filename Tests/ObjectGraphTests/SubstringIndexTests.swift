import Foundation
import Testing
import TestSupport
@testable import ObjectGraph
@testable import ObjectGraphPostgreSQL

/// `@Attribute(.indexedForSubstringSearch)`: a case-insensitive substring test reads an index
/// (SQLite: an FTS5 trigram table; PostgreSQL: a pg_trgm index) and answers exactly what the
/// scan answers; the index follows every write and is built for files written before it.
@Suite struct SubstringIndexTests {
    static let names = ["ACME Ltd", "acme gmbh", "Café Été", "CAFÉ ÉTÉ", "100% Pure", "1000 Pure", "a_b Co", "axb Co",
                        "Back\\slash", "Say \"hi\" Inc", "Straße", "İstanbul Ltd", "ab"]
    static let notes: [String?] = [nil, "Rush DELIVERY", "50% upfront", "under_score", "path\\to", "naïve café",
                                   "NAÏVE CAFÉ", "quote \"x\" here", "Ǆemal ǆ"]
    static let terms = ["acm", "ACME", "ltd", "été", "ÉTÉ", "Été", "café", "CAFÉ", "0%", "%", "100%", "0% ", "a_b", "_b",
                        "k\\s", "\\", "\\to", "\"hi\"", "\"", "ab", "a", "", "é", "straße", "STRASSE", "istanbul", "İst",
                        "rush", "delivery", "inv-", "INV-1", "nv-", "pure", "naïve", "NAÏVE", "ǅem", "ǆ", "none-such",
                        "Co\"", "e*", "OR", "a\u{301}", "x\" OR \"y"]

    /// A context on `location` over the indexed model, seeded (``seed(_:)``).
    static func seededContext(at location: StoreLocation) async throws -> ManagedObjectContext {
        let context = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator(model: SubstringIndexed.model))
        try await seed(context)
        return context
    }

    /// Seeds a client per name, each with an invoice per note (`INV-<client>-<note>`).
    static func seed(_ context: ManagedObjectContext) async throws {
        try await context.perform {
            for (c, name) in names.enumerated() {
                let client = SubstringIndexed.Client(context: context)
                client.name = name
                for (n, note) in notes.enumerated() where (c + n).isMultiple(of: 3) {
                    let invoice = SubstringIndexed.Invoice(context: context)
                    invoice.identifier = "INV-\(c)-\(n)"
                    invoice.notes = note
                    invoice.client = client
                }
            }
            try context.save()
        }
    }

    @Test(arguments: TestStore.shared)
    func anIndexedSearchFindsWhatTheScanFinds(_ store: TestStore) async throws {
        // Given a store written with the indexes, and a coordinator whose model declares none
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let indexed = try await Self.seededContext(at: location)
        let scanned = ManagedObjectContext(.privateQueue, coordinator: try location.coordinator(model: SubstringScanned.model))

        // Then every term finds the same clients and invoices both ways
        for term in Self.terms {
            let viaIndex = try await indexed.perform {
                (try SubstringSearch.clients(indexed, term), try SubstringSearch.invoices(indexed, term))
            }
            let viaScan = try await scanned.perform {
                (try SubstringSearch.scannedClients(scanned, term), try SubstringSearch.scannedInvoices(scanned, term))
            }
            #expect(viaIndex.0 == viaScan.0, "clients containing \(term.debugDescription)")
            #expect(viaIndex.1 == viaScan.1, "invoices containing \(term.debugDescription)")
        }
        // And the answers are the substring test's, not all or nothing
        let acme = try await indexed.perform { try SubstringSearch.clients(indexed, "acm") }
        #expect(acme == ["ACME Ltd", "acme gmbh"])
        let percent = try await indexed.perform { try SubstringSearch.clients(indexed, "0%") }
        #expect(percent == ["100% Pure"])
    }

    @Test func aSearchReadsTheTrigramTablesAndAShortTermScans() throws {
        // Given a file opened with the indexes
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try SearchStack.coordinator(at: url, model: SubstringIndexed.model)

        // Then the invoice search's plan looks rows up by key in both indexes, and scans
        // no table; a term of two characters scans the invoices
        let plan = try Self.plan(SubstringSearch.invoicePredicate("acme"), coordinator: coordinator, url: url)
        #expect(plan.contains("_og_trigram_Invoice VIRTUAL TABLE"), "\(plan)")
        #expect(plan.contains("_og_trigram_Client VIRTUAL TABLE"), "\(plan)")
        #expect(!plan.contains("SCAN t0"), "\(plan)")
        let short = try Self.plan(SubstringSearch.invoicePredicate("ac"), coordinator: coordinator, url: url)
        #expect(short.contains("SCAN t0") && !short.contains("_og_trigram"), "\(short)")
        // And without the declaration, the same search scans
        let scanned = try SearchStack.coordinator(at: url, model: SubstringScanned.model)
        let scan = try Self.plan(#Predicate<SubstringScanned.Invoice> { $0.identifier.localizedStandardContains("acme") },
                                 coordinator: scanned, url: url)
        #expect(scan.contains("SCAN t0") && !scan.contains("_og_trigram"), "\(scan)")
    }

    @Test func aSearchOfSeveralColumnsOfOneIndexLooksTheTermUpOnce() throws {
        // Given the invoice search (identifier or notes, both in the invoice's index, or the
        // client's name, in the client's)
        let location = TestStore.sqliteFile.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try location.coordinator(model: SubstringIndexed.model)
        let search = try FetchPlan(FetchRequest(predicate: SubstringSearch.invoicePredicate("acme")),
                                   model: coordinator.model, dialect: coordinator.dialect)
        let condition = try #require(search.condition)

        // Then each index is asked once, the invoice's for both of its columns
        #expect(condition.sql.components(separatedBy: "MATCH").count - 1 == 2, "\(condition.sql)")
        #expect(condition.bindings.contains(.string(#"{"identifier" "notes"} : "acme""#)), "\(condition.bindings)")
        #expect(condition.bindings.contains(.string(#""name" : "acme""#)), "\(condition.bindings)")

        // And two different terms are two lookups
        let twoTerms = try FetchPlan(FetchRequest(predicate: #Predicate<SubstringIndexed.Invoice> { invoice in
            invoice.identifier.localizedStandardContains("acme") || invoice.notes?.localizedStandardContains("rush") == true
        }), model: coordinator.model, dialect: coordinator.dialect)
        let twoConditions = try #require(twoTerms.condition)
        #expect(twoConditions.sql.components(separatedBy: "MATCH").count - 1 == 2, "\(twoConditions.sql)")
    }

    @Test(arguments: TestStore.shared)
    func aSearchOfDifferentTermsInOneIndexFindsWhatTheScanFinds(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let indexed = try await Self.seededContext(at: location)
        let found = try await indexed.perform {
            try indexed.fetch(FetchRequest<SubstringIndexed.Invoice>(predicate: #Predicate { invoice in
                invoice.identifier.localizedStandardContains("inv-1-") || invoice.notes?.localizedStandardContains("rush") == true
            })).map(\.identifier).sorted()
        }
        let all = try await indexed.perform {
            try indexed.fetch(FetchRequest<SubstringIndexed.Invoice>()).map { ($0.identifier, $0.notes) }
        }
        let expected = all.filter { $0.0.lowercased().contains("inv-1-") || $0.1?.lowercased().contains("rush") == true }
            .map(\.0).sorted()
        #expect(!expected.isEmpty)
        #expect(found == expected)
    }

    @Test(.enabled(if: TestStore.isPostgreSQLAvailable, "PostgreSQL is not installed: see PostgreSQLAvailabilityTests"))
    func onPostgreSQLTheDeclarationMakesTrigramIndexesThatTheSearchReads() async throws {
        // Given a database opened with the declaring model and no configured index
        let location = TestStore.postgreSQL.makeLocation()
        let coordinator = try location.coordinator(model: SubstringIndexed.model)
        let condition = try PredicateTranslator(schema: ModelPredicateSchema(model: SubstringIndexed.model),
                                                rootEntity: "Invoice", dialect: coordinator.dialect)
            .translate(SubstringSearch.invoicePredicate("acme"))

        // Then each declared attribute has its index, and the search reads them (sequential
        // scans discouraged: the tables are small)
        let db = try PostgreSQLContentionTests.connection(to: location)
        let indexes = try db.query("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE '%trgm' ORDER BY 1")
        #expect((0..<indexes.rowCount).compactMap { indexes.text($0, 0) }
                == ["Client_name_trgm", "Invoice_identifier_trgm", "Invoice_notes_trgm"])
        try db.execute("SET enable_seqscan = off")
        let plan = try db.query("EXPLAIN SELECT t0._pk FROM \"Invoice\" t0 WHERE \(condition)")
        let text = (0..<plan.rowCount).compactMap { plan.text($0, 0) }.joined(separator: "\n")
        #expect(text.contains("Invoice_identifier_trgm") && text.contains("Invoice_notes_trgm"), "\(text)")
    }

    /// `EXPLAIN QUERY PLAN` of the fetch `predicate` makes on `coordinator`'s store, its
    /// details joined by lines.
    static func plan<Invoice: ManagedObject>(_ predicate: Predicate<Invoice>, coordinator: PersistentStoreCoordinator,
                     url: URL) throws -> String {
        let fetch = try FetchPlan(FetchRequest(predicate: predicate), model: coordinator.model, dialect: coordinator.dialect)
        let condition = try #require(fetch.condition)
        let rows = try RawSQLite.rows("EXPLAIN QUERY PLAN SELECT t0._pk FROM \"Invoice\" t0 WHERE \(condition.sql)", at: url)
        return rows.compactMap { $0.last ?? nil }.joined(separator: "\n")
    }
}

/// `FetchRequest.readsSubstringIndexes = false`: the same answers, found by testing each row
/// the query walks rather than through the index (for a term found in many rows).
@Suite struct SubstringIndexWalkTests {
    @Test(arguments: TestStore.all)
    func aFetchThatReadsNoIndexFindsWhatTheIndexFindsPageByPage(_ store: TestStore) async throws {
        let location = store.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try location.coordinator(model: SubstringIndexed.model)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await SubstringIndexTests.seed(context)
        for term in ["acm", "CAFÉ", "inv-1", "co", "none-such", "%"] {
            for offset in [0, 2, 5] {
                let (viaIndex, viaWalk, counts) = try await context.perform {
                    let indexed = FetchRequest<SubstringIndexed.Invoice>(predicate: SubstringSearch.invoicePredicate(term),
                                                                        sortBy: [SortDescriptor(\.identifier, order: .reverse)],
                                                                        fetchLimit: 3, fetchOffset: offset)
                    var walked = indexed
                    walked.readsSubstringIndexes = false
                    return (try context.fetch(indexed).map(\.identifier), try context.fetch(walked).map(\.identifier),
                            (try context.count(for: indexed.unpaged), try context.count(for: walked.unpaged)))
                }
                #expect(viaIndex == viaWalk, "\(term.debugDescription) from \(offset)")
                #expect(counts.0 == counts.1, "\(term.debugDescription)")
            }
        }
    }

    @Test func onSQLiteTheWalkReadsNoTrigramTable() throws {
        let location = TestStore.sqliteFile.makeLocation()
        defer { location.cleanUp() }
        let coordinator = try location.coordinator(model: SubstringIndexed.model)
        var request = FetchRequest<SubstringIndexed.Invoice>(predicate: SubstringSearch.invoicePredicate("acme"),
                                                            sortBy: [SortDescriptor(\.identifier)], fetchLimit: 10)
        let indexed = try FetchPlan(request, model: coordinator.model, dialect: coordinator.dialect)
        request.readsSubstringIndexes = false
        let walked = try FetchPlan(request, model: coordinator.model, dialect: coordinator.dialect)
        #expect(indexed.condition?.sql.contains("MATCH") == true)
        #expect(walked.condition?.sql.contains("MATCH") == false)
        #expect(walked.condition?.sql.contains("instr") == true)
    }
}

private extension FetchRequest {
    /// The request without its window.
    var unpaged: FetchRequest {
        var request = self
        request.fetchLimit = nil
        request.fetchOffset = 0
        return request
    }
}
