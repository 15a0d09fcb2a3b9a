// history-bench: issue 5's benchmarks.
//   1. latency from a commit in another process to the change in this process's main
//      context (median and p99 over 1,000 commits; goal p99 < 100 ms);
//   2. batch insert and batch delete of 100,000 invoices against raw SQLite.
//
// Usage: history-bench [--commits N] [--pause SECONDS] [--batch N] [--rounds N]
//        history-bench --writer PATH --commits N --pause SECONDS   (process B, run by the bench)
import Foundation

func value(_ flag: String) -> String? {
    guard let i = CommandLine.arguments.firstIndex(of: flag), i + 1 < CommandLine.arguments.count else { return nil }
    return CommandLine.arguments[i + 1]
}

let commits = value("--commits").flatMap(Int.init) ?? 1_000
let pause = value("--pause").flatMap(Double.init) ?? 0.01
if let path = value("--writer") {
    do { try LatencyBenchmark.write(path: path, commits: commits, pause: pause) } catch {
        FileHandle.standardError.write(Data("writer: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

let batch = value("--batch").flatMap(Int.init) ?? 100_000
let rounds = value("--rounds").flatMap(Int.init) ?? 3
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("history-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)

Task {
    do {
        try await LatencyBenchmark.run(commits: commits, folder: folder, pause: pause)
        try BatchBenchmark.run(count: batch, rounds: rounds, folder: folder)
    } catch {
        print("history-bench failed: \(error)")
        try? FileManager.default.removeItem(at: folder)
        exit(1)
    }
    try? FileManager.default.removeItem(at: folder)
    exit(0)
}
dispatchMain()
