// history-values-bench: persistent history that records values (issue 14, part 5).
//   1. what recording values costs a save of 10,000 updated objects, beside history without
//      values, no history, and raw SQLite (rows only; rows and the same history rows);
//   2. one object's history (a page of 20) among 1,000,000 transactions, beside raw SQLite
//      running the same queries; and how long a file without the index takes to open.
//
// Usage: history-values-bench [--updates N] [--rounds N] [--transactions N] [--reads N]
import Foundation

func value(_ flag: String) -> String? {
    guard let i = CommandLine.arguments.firstIndex(of: flag), i + 1 < CommandLine.arguments.count else { return nil }
    return CommandLine.arguments[i + 1]
}

let updates = value("--updates").flatMap(Int.init) ?? 10_000
let rounds = value("--rounds").flatMap(Int.init) ?? 5
let transactions = value("--transactions").flatMap(Int.init) ?? 1_000_000
let reads = value("--reads").flatMap(Int.init) ?? 200
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("history-values-bench-\(UUID().uuidString)")

do {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try SaveCostBenchmark.run(updates: updates, rounds: rounds, folder: folder)
    print()
    try ObjectHistoryBenchmark.run(transactions: transactions, reads: reads, rounds: rounds, folder: folder)
} catch {
    print("history-values-bench failed: \(error)")
    exit(1)
}
