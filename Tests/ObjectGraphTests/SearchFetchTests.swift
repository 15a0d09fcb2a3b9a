import Foundation
import Testing
@testable import ObjectGraph

/// Fetching by words: prefixes, phrases, folding, ranking, and a search combined with a
/// predicate, sort descriptors, a limit and an offset.
@Suite struct SearchFetchTests {
    /// A store of invoices for Acme (sent), Globex (draft) and fillers, so that ranks differ.
    static func seeded(_ store: TestStore) async throws -> ManagedObjectContext {
        let context = ManagedObjectContext(.privateQueue, coordinator: try store.coordinator(model: Indexed.model))
        try await SearchStack.seed(context, client: "Acme", invoices: [
            ("INV-2024-0001", "a long note that mentions acme once among many other words about shipping and billing"),
            ("INV-2024-0002", "acme acme acme"),
            ("INV-2024-0003", "Acme widgets, invoiced in Zürich"),
            ("CRN-2024-0004", "credit note for acme"),
        ], status: .sent)
        try await SearchStack.seed(context, client: "Globex", invoices: [
            ("INV-2024-0005", "acme widgets resold"),
            ("INV-2024-0006", "gizmos for the Invoicing department"),
        ])
        try await SearchStack.seed(context, client: "Fillers", invoices: (1...6).map { ("F-\($0)", "unrelated text \($0)") })
        return context
    }

    @Test(arguments: TestStore.all) func aWordMatchesWholeTokensAndAStarredWordMatchesPrefixes(_ store: TestStore) async throws {
        let context = try await Self.seeded(store)
        #expect(try await SearchStack.identifiers(context, "widget").isEmpty)
        #expect(try await SearchStack.identifiers(context, "widget*").sorted() == ["INV-2024-0003", "INV-2024-0005"])
        #expect(try await SearchStack.identifiers(context, "invoic*").sorted() == ["INV-2024-0003", "INV-2024-0006"])
        // Search as you type: the last word is a prefix unless a space follows it
        #expect(try await SearchStack.identifiers(context, "acme wid", prefix: .lastWord).sorted() == ["INV-2024-0003", "INV-2024-0005"])
        #expect(try await SearchStack.identifiers(context, "acme wid ", prefix: .lastWord).isEmpty)
        #expect(try await SearchStack.identifiers(context, "acm wid", prefix: .everyWord).sorted() == ["INV-2024-0003", "INV-2024-0005"])
    }

    @Test(arguments: TestStore.all) func everyWordMustOccurInSomeSearchableAttributeAndWordsWithPunctuationArePhrases(_ store: TestStore) async throws {
        let context = try await Self.seeded(store)
        // "2024" in the identifier, "credit" in the notes
        #expect(try await SearchStack.identifiers(context, "credit 2024") == ["CRN-2024-0004"])
        // An identifier typed whole is its tokens in a row
        #expect(try await SearchStack.identifiers(context, "INV-2024-0002") == ["INV-2024-0002"])
        #expect(try await SearchStack.identifiers(context, "inv-2024-000*").count == 5)
        #expect(try await SearchStack.identifiers(context, "0002-2024").isEmpty)
    }

    @Test(arguments: TestStore.all) func caseAndLatinDiacriticsFoldAsTheIndexFoldsThem(_ store: TestStore) async throws {
        let context = try await Self.seeded(store)
        #expect(try await SearchStack.identifiers(context, "ZURICH") == ["INV-2024-0003"])
        #expect(try await SearchStack.identifiers(context, "zürich") == ["INV-2024-0003"])
        #expect(try await SearchStack.identifiers(context, "ACMÉ WÍDGETS").sorted() == ["INV-2024-0003", "INV-2024-0005"])
    }

    @Test(arguments: TestStore.all) func resultsComeBestMatchFirst(_ store: TestStore) async throws {
        let context = try await Self.seeded(store)
        let ranked = try await SearchStack.identifiers(context, "acme")
        // The note that is nothing but the word first, the long note that mentions it once last
        #expect(ranked.first == "INV-2024-0002")
        #expect(ranked.last == "INV-2024-0001")
        #expect(Set(ranked) == ["INV-2024-0001", "INV-2024-0002", "INV-2024-0003", "CRN-2024-0004", "INV-2024-0005"])
        // Without rank order, the sort descriptors alone decide
        let byIdentifier = try await SearchStack.identifiers(context, "acme") { request in
            request.sortsBySearchRank = false
            request.sortDescriptors = [SortDescriptor(\.identifier, order: .reverse)]
        }
        #expect(byIdentifier == ["INV-2024-0005", "INV-2024-0003", "INV-2024-0002", "INV-2024-0001", "CRN-2024-0004"])
    }

    @Test(arguments: TestStore.all) func aSearchCombinesWithAPredicateALimitAndAnOffset(_ store: TestStore) async throws {
        let context = try await Self.seeded(store)
        let status = InvoiceStatus.sent
        let sent = #Predicate<Indexed.Invoice> { $0.status == status }
        let all = try await SearchStack.identifiers(context, "acme inv*", predicate: sent)
        #expect(all == ["INV-2024-0002", "INV-2024-0003", "INV-2024-0001"])
        let page = try await SearchStack.identifiers(context, "acme inv*", predicate: sent) { request in
            request.fetchLimit = 2
            request.fetchOffset = 1
        }
        #expect(page == ["INV-2024-0003", "INV-2024-0001"])
        let (count, ids) = try await context.perform {
            var request = FetchRequest<Indexed.Invoice>(predicate: sent)
            request.searchQuery = SearchQuery("acme inv*")
            return (try context.count(for: request), try context.fetchObjectIDs(request))
        }
        #expect(count == 3)
        #expect(ids.count == 3)
    }

    @Test(arguments: TestStore.all) func aPredicateThroughARelationshipCombinesWithTheSearch(_ store: TestStore) async throws {
        let context = try await Self.seeded(store)
        let globex = #Predicate<Indexed.Invoice> { $0.client?.name == "Globex" }
        #expect(try await SearchStack.identifiers(context, "acme", predicate: globex) == ["INV-2024-0005"])
    }

    @Test(arguments: TestStore.all) func clientsAreSearchedByTheirOwnIndex(_ store: TestStore) async throws {
        let context = try await Self.seeded(store)
        let names = try await context.perform {
            var request = FetchRequest<Indexed.Client>(sortBy: [SortDescriptor(\.name)])
            request.searchQuery = SearchQuery("glo*")
            return try context.fetch(request).map(\.name)
        }
        #expect(names == ["Globex"])
    }

    @Test(arguments: TestStore.all) func aPhraseDoesNotRunFromOneAttributeIntoTheNext(_ store: TestStore) async throws {
        // Given an invoice whose identifier ends with a word and whose notes begin with another
        let context = ManagedObjectContext(.privateQueue, coordinator: try store.coordinator(model: Indexed.model))
        try await SearchStack.seed(context, client: "Acme", invoices: [("ACME", "widgets resold")])
        // Then both words are found, but not as a phrase across the two attributes
        #expect(try await SearchStack.identifiers(context, "acme widgets") == ["ACME"])
        #expect(try await SearchStack.identifiers(context, "widgets-resold") == ["ACME"])
        #expect(try await SearchStack.identifiers(context, "acme-widgets").isEmpty)
    }
}
