import CSQLite
import Foundation
import Testing
import TestSupport
@testable import ObjectGraph

/// The Swift tokenizer that matches unsaved objects against the real one: FTS5's unicode61
/// with the index's options, in this process's SQLite, read back through `fts5vocab`.
@Suite struct SearchTokenizerTests {
    /// The folded tokens FTS5 makes of each text, in order.
    static func fts5Tokens(of texts: [String]) throws -> [[[UInt8]]] {
        var handle: OpaquePointer?
        guard sqlite3_open(":memory:", &handle) == SQLITE_OK, let db = handle else { throw RawDatabase.Failure(description: "open") }
        defer { sqlite3_close(db) }
        func execute(_ sql: String) throws {
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
                throw RawDatabase.Failure(description: String(cString: sqlite3_errmsg(db)))
            }
        }
        try execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='\(SearchIndexTable.tokenizer)')")
        try execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        try execute("BEGIN")
        var insert: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO t(rowid, x) VALUES (?, ?)", -1, &insert, nil)
        for (row, text) in texts.enumerated() {
            sqlite3_reset(insert)
            sqlite3_bind_int64(insert, 1, Int64(row))
            _ = Array(text.utf8).withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) {
                    sqlite3_bind_text(insert, 2, $0.baseAddress, Int32($0.count), csqlite_transient())
                }
            }
            guard sqlite3_step(insert) == SQLITE_DONE else { throw RawDatabase.Failure(description: "insert \(row)") }
        }
        sqlite3_finalize(insert)
        try execute("COMMIT")
        var tokens = [[[UInt8]]](repeating: [], count: texts.count)
        var select: OpaquePointer?
        sqlite3_prepare_v2(db, "SELECT doc, term FROM v ORDER BY doc, offset", -1, &select, nil)
        defer { sqlite3_finalize(select) }
        while sqlite3_step(select) == SQLITE_ROW {
            let doc = Int(sqlite3_column_int64(select, 0))
            let count = Int(sqlite3_column_bytes(select, 1))
            let term = sqlite3_column_blob(select, 1).map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
            tokens[doc].append(term)
        }
        return tokens
    }

    static func name(_ value: UInt32) -> String { "U+" + String(value, radix: 16, uppercase: true) }

    @Test func everyCodePointOfTheBasicPlaneAndTheEmojiBlocksIsClassifiedAndFoldedAsFTS5Does() async throws {
        // Seconds of work: on a thread of its own, not one of the test process's two
        // cooperative threads, which every async test beside it needs to go on.
        let (differing, count) = try await onThreadOfItsOwn { () throws -> ([String], Int) in
            // Given each code point between two letters (a token character joins them into one
            // token, folded; a separator splits them)
            let ranges: [ClosedRange<UInt32>] = [0x20...0xD7FF, 0xE000...0xFFFF, 0x10400...0x1044F, 0x1F000...0x1FAFF,
                                                 0x1FFFE...0x1FFFF, 0xF0000...0xF00FF, 0x10FFFE...0x10FFFF]
            let scalars = ranges.flatMap { $0.compactMap(Unicode.Scalar.init) }
            let texts = scalars.map { "x" + String(Character($0)) + "y" }

            // When FTS5 and the Swift tokenizer read them
            let expected = try Self.fts5Tokens(of: texts)

            let differing = zip(scalars, zip(texts, expected)).filter { SearchTokenizer.foldedTokens(in: $1.0) != $1.1 }
            return (differing.map { Self.name($0.0.value) }, scalars.count)
        }
        // Then they agree on every one
        #expect(differing.isEmpty, "differ: \(differing.prefix(20))")
        #expect(count > 65_000)
    }

    @Test func textsInManyScriptsTokenizeAsFTS5TokenizesThem() throws {
        let texts = [
            "Acme Corporation, INV-2024-0042: 3 widgets @ €12.50 (rush!)",
            "Crème brûlée for the Øresund café — naïve façade, Ærøskøbing",
            "Straße İstanbul ıi ﬁne ǅemal Σίσυφος ΣΊΣΥΦΟΣ µ ſ ǡ ǖ",
            "Доставка в Москва, ёлка Й", "東京タワー見学 と 大阪", "한국어 텍스트", "עברית, العربية, हिन्दी",
            "e\u{301}te\u{308} a\u{301}\u{301}b \u{301}lone x\u{20DD}y", "tab\tnew\nline\u{2028}sep\u{0}nul",
            "🤦🏼‍♂️ v1.2 Grey Ⅲ ColOUR! Don't jump 🇫🇮你好世界", "snake_case kebab-case dot.case",
            String(repeating: "z", count: 40_000) + " tail",
        ]
        let expected = try Self.fts5Tokens(of: texts)
        for (text, tokens) in zip(texts, expected) {
            #expect(SearchTokenizer.foldedTokens(in: text) == tokens, "\(text.prefix(60).debugDescription)")
        }
    }
}
