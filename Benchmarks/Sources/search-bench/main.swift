// search-bench: full-text search over 100,000 invoices' notes (FTS5, `@Attribute(.searchable)`)
// against a `LIKE '%word%'` scan in raw SQLite, and what keeping the index costs a batch insert.
//
// Usage: search-bench [--invoices N] [--rounds N]
//
// Columns, each measured at its best (statements prepared once, best of 3 runs per round),
// interleaved in rotating order within each round:
//   all matches  LIKE scan (raw)  `SELECT _pk FROM Invoice WHERE notes LIKE '%word%'`
//                FTS5 (raw)       `SELECT rowid FROM fts WHERE fts MATCH '"word"'`
//                ObjectGraph IDs  `fetchObjectIDs` with a SearchQuery, no rank order
//   first page   LIKE page (raw)  the LIKE scan with LIMIT 50 (unranked: LIKE cannot rank)
//                FTS5 page (raw)  join, ORDER BY rank LIMIT 50, reading _pk and notes
//                ObjectGraph page `fetch` with a SearchQuery, best 50 as objects
// Ratios are to the LIKE scan of the same round; the summary gives the median.
import Foundation
import ObjectGraph

func value(_ flag: String) -> String? {
    guard let i = CommandLine.arguments.firstIndex(of: flag), i + 1 < CommandLine.arguments.count else { return nil }
    return CommandLine.arguments[i + 1]
}

let invoiceCount = value("--invoices").flatMap(Int.init) ?? 100_000
let rounds = value("--rounds").flatMap(Int.init) ?? 7
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("search-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

do {
    let path = try WriteCost.run(count: invoiceCount, rounds: 3, folder: folder)
    try QueryBenchmark(path: path, invoices: invoiceCount).run(rounds: rounds)
} catch {
    print("search-bench failed: \(error)")
    exit(1)
}
