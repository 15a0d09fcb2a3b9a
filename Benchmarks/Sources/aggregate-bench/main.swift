// aggregate-bench: issue 14. Totals per currency of N invoices (Decimal amounts), exact, from
// ObjectGraph's AggregateRequest, against SQLite's own `SELECT currency, SUM(amount) … GROUP BY
// currency` through a prepared statement reused on a warm connection. Two queries: every
// invoice, and the sent third (a predicate). Rounds interleave the two sides, alternating which
// goes first; each round prints both times and their ratio, then the medians.
//
// SQLite's SUM reads the stored text as binary doubles, so its totals are not exact: the
// comparison is of time only, and the output says how far SQLite's totals are off.
//
// Usage: aggregate-bench [--invoices N] [--rounds N]
import CSQLiteBench
import Foundation
import ObjectGraph

func value(_ flag: String) -> String? {
    guard let i = CommandLine.arguments.firstIndex(of: flag), i + 1 < CommandLine.arguments.count else { return nil }
    return CommandLine.arguments[i + 1]
}

let count = value("--invoices").flatMap(Int.init) ?? 100_000
let rounds = value("--rounds").flatMap(Int.init) ?? 15
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("aggregate-bench-\(UUID().uuidString)")

do {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let dataset = Dataset(count: count)
    let path = folder.appendingPathComponent("invoices.sqlite").path
    let context = try AggregateBenchmark.makeStore(at: path, dataset: dataset)
    let raw = try RawTotals(path: path)
    try AggregateBenchmark(context: context, raw: raw, dataset: dataset).run(rounds: rounds)
} catch {
    print("aggregate-bench failed: \(error)")
    exit(1)
}
