import CSQLite
import Foundation
import Testing
import TestSupport
@testable import ObjectGraph

/// Unsaved objects are matched in memory by the same rules as the index: random documents and
/// random typed queries (words, punctuation, stars, quotes, operators, diacritics, other
/// scripts), each query's in-memory answer compared with FTS5's `MATCH` on the same documents.
@Suite struct SearchMatchingAgreementTests {
    /// Pieces that make words collide, nest as prefixes, fold together, or look like syntax.
    static let pieces = ["ab", "abc", "abcd", "b", "ba", "Café", "cafe", "CAFÉ", "e\u{301}", "naïve", "Ærø", "ß", "ss",
                         "東京", "タワー", "москва", "Μ", "µ", "2024", "0042", "x", "AND", "OR", "NOT", "NEAR"]
    static let separators = [" ", " ", " ", "-", ".", ",", "\"", "*", "(", ")", ":", "^", "+", "'", "_", "\u{0}", "\t", "🚀"]

    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }

        mutating func text(pieces: Int) -> String {
            (0..<pieces).map { _ in
                SearchMatchingAgreementTests.pieces[next(SearchMatchingAgreementTests.pieces.count)]
                    + SearchMatchingAgreementTests.separators[next(SearchMatchingAgreementTests.separators.count)]
            }.joined()
        }
    }

    @Test func inMemoryMatchingAgreesWithFTS5OnRandomDocumentsAndQueries() async throws {
        // Seconds of work: on a thread of its own, not one of the test process's two
        // cooperative threads, which every async test beside it needs to go on.
        let (disagreements, compared, nonEmpty) = try await onThreadOfItsOwn { () throws -> ([String], Int, Int) in
            var generator = Generator(state: 20_240_601)
            let documents = (0..<100).map { _ in [generator.text(pieces: 1 + generator.next(8)), generator.text(pieces: generator.next(5))] }
            let fts = try InMemoryIndex(documents: documents)
            var disagreements: [String] = [], compared = 0, nonEmpty = 0
            for _ in 0..<300 {
                let text = generator.text(pieces: 1 + generator.next(3))
                for prefix in [SearchQuery.PrefixMatching.starredWords, .lastWord, .everyWord] {
                    let query = SearchQuery(text, prefixMatching: prefix)
                    let inMemory = Set(documents.indices.filter { query.matches(documents[$0]) })
                    let indexed = query.isEmpty ? [] : try fts.matching(query.description)
                    if inMemory != indexed { disagreements.append("\(text.debugDescription) as \(query.description)") }
                    compared += 1
                    if !indexed.isEmpty { nonEmpty += 1 }
                }
            }
            return (disagreements, compared, nonEmpty)
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(20))")
        // The comparison means something: most queries find documents
        #expect(compared == 900 && nonEmpty > 300)
    }

    /// An FTS5 table in memory, with the index's tokenizer, over two columns.
    final class InMemoryIndex {
        private let db: OpaquePointer
        private let select: OpaquePointer

        init(documents: [[String]]) throws {
            var handle: OpaquePointer?
            guard sqlite3_open(":memory:", &handle) == SQLITE_OK, let handle else { throw RawDatabase.Failure(description: "open") }
            db = handle
            sqlite3_exec(db, "CREATE VIRTUAL TABLE t USING fts5(a, b, tokenize='\(SearchIndexTable.tokenizer)')", nil, nil, nil)
            var insert: OpaquePointer?
            sqlite3_prepare_v2(db, "INSERT INTO t(rowid, a, b) VALUES (?, ?, ?)", -1, &insert, nil)
            for (row, columns) in documents.enumerated() {
                sqlite3_reset(insert)
                sqlite3_bind_int64(insert, 1, Int64(row))
                for (n, text) in columns.enumerated() { Self.bind(text, to: insert, at: Int32(n + 2)) }
                guard sqlite3_step(insert) == SQLITE_DONE else { throw RawDatabase.Failure(description: "insert") }
            }
            sqlite3_finalize(insert)
            var statement: OpaquePointer?
            sqlite3_prepare_v2(db, "SELECT rowid FROM t WHERE t MATCH ?", -1, &statement, nil)
            guard let statement else { throw RawDatabase.Failure(description: "prepare") }
            select = statement
        }

        deinit {
            sqlite3_finalize(select)
            sqlite3_close(db)
        }

        /// Binds all of `text`'s bytes (a NUL inside included); empty text as empty, not NULL.
        static func bind(_ text: String, to statement: OpaquePointer?, at index: Int32) {
            let bytes = Array(text.utf8).map { CChar(bitPattern: $0) } + [0]
            sqlite3_bind_text(statement, index, bytes, Int32(bytes.count - 1), csqlite_transient())
        }

        /// The rows FTS5 finds for `expression`; throws when FTS5 refuses it.
        func matching(_ expression: String) throws -> Set<Int> {
            sqlite3_reset(select)
            Self.bind(expression, to: select, at: 1)
            var rows = Set<Int>()
            while true {
                let rc = sqlite3_step(select)
                if rc == SQLITE_DONE { return rows }
                guard rc == SQLITE_ROW else {
                    throw RawDatabase.Failure(description: "\(String(cString: sqlite3_errmsg(db))) for \(expression)")
                }
                rows.insert(Int(sqlite3_column_int64(select, 0)))
            }
        }
    }
}
