import Foundation
import Testing
@testable import ObjectGraph

/// What a person types is words, never FTS5 syntax: no input makes a search fail, and
/// operators, quotes and punctuation mean nothing special.
@Suite struct SearchQueryTests {
    static let hostileInputs: [String] = [
        "", "   ", "\t\n", "!!! ???", "\"", "\"\"", "\"acme", "acme\"", "a\"b\"c", "'", "''; DROP TABLE \"Invoice\"; --",
        "NEAR(acme widgets)", "NEAR(", "NEAR(acme, 2)", "acme NEAR widgets", "-acme", "acme -widgets", "- -- ---",
        "AND", "OR", "NOT", "acme AND widgets", "acme OR zeppelin", "NOT acme", "acme NOT widgets",
        "*", "**", "* acme", "acme*", "*acme", "ac*me", "acme**", "acme *", "^acme", "^", "+acme", "acme + widgets",
        "identifier:acme", "{identifier notes}: acme", "notes : acme", ":", "(acme)", "((", ")", "acme)", "[acme]",
        "acme\u{0}widgets", "\u{0}", "\u{1}\u{2}\u{7F}", "\u{301}", "e\u{301}", "🚀", "👩‍👩‍👧", "东京", "東京タワー*",
        "Москва", "Ελληνικά", "עברית", "العربية", "हिन्दी", "\u{FFFE}", "\u{10FFFF}", "\u{E000}",
        String(repeating: "acme ", count: 20_000), String(repeating: "x", count: 100_000),
        String(repeating: "\"", count: 10_000), String(repeating: "a-", count: 50_000),
    ]

    @Test(arguments: TestStore.all) func noTypedTextMakesTheStoreOrTheMemoryPassFail(_ store: TestStore) async throws {
        // Given a store with invoices, and a context with an unsaved one (the memory pass)
        let context = ManagedObjectContext(.privateQueue, coordinator: try store.coordinator(model: Indexed.model))
        try await SearchStack.seed(context, client: "Acme", invoices: [("A-1", "acme widgets near the door"), ("A-2", "launch 🚀 today")])
        let pending = ManagedObjectContext(.privateQueue, coordinator: context.persistentStoreCoordinator)
        await pending.perform {
            let invoice = Indexed.Invoice(context: pending)
            invoice.identifier = "P-1"
            invoice.notes = "acme widgets, unsaved"
        }
        // When each hostile text is searched, store only and with pending changes, with
        // every kind of prefix matching
        for text in Self.hostileInputs {
            for prefix in [SearchQuery.PrefixMatching.starredWords, .lastWord, .everyWord] {
                for target in [context, pending] {
                    // Then nothing throws
                    await #expect(throws: Never.self, "\(text.prefix(40).debugDescription)") {
                        _ = try await SearchStack.identifiers(target, text, prefix: prefix)
                        _ = try await target.perform {
                            var request = FetchRequest<Indexed.Invoice>()
                            request.searchQuery = SearchQuery(text, prefixMatching: prefix)
                            return try target.count(for: request)
                        }
                    }
                }
            }
        }
        // And the table is still there
        #expect(try await SearchStack.identifiers(context, "widgets") == ["A-1"])
    }

    @Test(arguments: TestStore.all) func operatorsAndQuotesArePlainWords(_ store: TestStore) async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try store.coordinator(model: Indexed.model))
        try await SearchStack.seed(context, client: "Acme", invoices: [("A-1", "acme widgets"), ("A-2", "acme gadgets")])
        // A minus does not exclude; OR and NOT are words the notes do not hold
        #expect(try await SearchStack.identifiers(context, "acme -widgets") == ["A-1"])
        #expect(try await SearchStack.identifiers(context, "acme OR zeppelin").isEmpty)
        #expect(try await SearchStack.identifiers(context, "NOT widgets").isEmpty)
        // Quotes, carets, brackets and column names are punctuation
        #expect(try await SearchStack.identifiers(context, "\"widgets").sorted() == ["A-1"])
        #expect(try await SearchStack.identifiers(context, "^widgets)") == ["A-1"])
        #expect(try await SearchStack.identifiers(context, "notes:widgets").isEmpty)     // the phrase "notes widgets"
        // A NUL splits words like any separator
        #expect(try await SearchStack.identifiers(context, "acme\u{0}widgets") == ["A-1"])
    }

    @Test(arguments: TestStore.all) func textWithoutWordsMatchesNothing(_ store: TestStore) async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try store.coordinator(model: Indexed.model))
        try await SearchStack.seed(context, client: "Acme", invoices: [("A-1", "acme widgets")])
        for text in ["", "  ", "!!!", "\"\"", "*", "- + ^ :", "\u{301}"] {
            #expect(SearchQuery(text).isEmpty, "\(text.debugDescription)")
            #expect(try await SearchStack.identifiers(context, text).isEmpty, "\(text.debugDescription)")
        }
    }

    @Test(arguments: TestStore.all) func nonLatinTextIsFoundByItsOwnWords(_ store: TestStore) async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try store.coordinator(model: Indexed.model))
        try await SearchStack.seed(context, client: "Acme", invoices: [
            ("R-1", "Доставка в Москва"), ("G-1", "Ελληνικά κείμενα"), ("J-1", "東京タワー見学"), ("E-1", "facepalm 🤦 today"),
        ])
        #expect(try await SearchStack.identifiers(context, "МОСКВА") == ["R-1"])
        #expect(try await SearchStack.identifiers(context, "ΕΛΛΗΝΙΚΆ") == ["G-1"])
        // Without spaces, a CJK run is one token: a part of it is found as a prefix only
        #expect(try await SearchStack.identifiers(context, "東京").isEmpty)
        #expect(try await SearchStack.identifiers(context, "東京*") == ["J-1"])
        // Emoji SQLite's Unicode 6.1 tables know are symbols, hence separators; later ones
        // are unknown to it, hence letters. PostgreSQL counts no emoji as a letter (a
        // documented difference): there the search finds nothing, and fails no less.
        #expect(try await SearchStack.identifiers(context, "🤦") == (store == .postgreSQL ? [] : ["E-1"]))
        #expect(SearchQuery("🚀").isEmpty)
    }

    @Test func aQueryKeepsAtMostItsTokenBudget() {
        let query = SearchQuery(String(repeating: "acme ", count: 20_000) + "zeppelin")
        #expect(query.phrases.count == SearchQuery.maximumTokenCount)
        #expect(!query.phrases.contains { $0.tokens == ["zeppelin"] })
        let long = SearchQuery(String(repeating: "a-", count: 50_000))
        #expect(long.phrases.count == 1 && long.phrases[0].tokens.count == SearchQuery.maximumTokenCount)
    }

    @Test func theMatchExpressionQuotesEveryPhrase() {
        #expect(SearchQuery("Acme \"INV-2024\"* NEAR(x").description == #""Acme" "INV 2024"* "NEAR x""#)
        #expect(SearchQuery("acme inv", prefixMatching: .lastWord).description == #""acme" "inv"*"#)
        #expect(SearchQuery("acme inv ", prefixMatching: .lastWord).description == #""acme" "inv""#)
        #expect(SearchQuery("acme inv", prefixMatching: .everyWord).description == #""acme"* "inv"*"#)
    }
}
