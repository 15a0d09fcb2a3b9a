import Foundation
import ObjectGraph
import Synchronization

/// Latency from a commit in process B to the change being visible in process A's main
/// context: B (this executable with `--writer`) commits N times, printing the monotonic
/// time after each commit; A merges through its history consumer into writer and main,
/// and notes when main's account first shows each sequence number.
enum LatencyBenchmark {
    static func run(commits: Int, folder: URL, pause: Double) async throws {
        let path = folder.appendingPathComponent("latency.sqlite").path
        let coordinator = try BenchModel.coordinator(at: path, history: true, remote: true)
        let writer = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "writer")
        let main = ManagedObjectContext(.mainQueue, parent: writer, name: "main")
        // The account exists before B starts, and main holds it: its merges refresh it.
        let id = try await writer.perform {
            let account = BenchAccount(context: writer)
            account.name = "bench"
            try writer.save()
            return account.objectID
        }
        let holder = Holder()
        try await main.perform { holder.account = try main.existingObject(with: id, as: BenchAccount.self) }
        let consumer = try PersistentHistoryConsumer(name: "latency-A", coordinator: coordinator, contexts: [writer, main])
        consumer.start()

        let seen = Mutex<[Int64: Int64]>([:])   // sequence → first time main showed it
        let changes = main.changes
        let watcher = Task {
            var highest: Int64 = 0
            for await change in changes where change.origin == .remote {
                _ = change
                let value = await main.perform { holder.account?.sequence ?? 0 }
                let now = monotonicNanoseconds()
                if value > highest {
                    seen.withLock { for n in (highest + 1)...value { $0[n] = now } }
                    highest = value
                }
                if value >= Int64(commits) { return }
            }
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        process.arguments = ["--writer", path, "--commits", String(commits), "--pause", String(pause)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let deadline = ContinuousClock.now + .seconds(5)
        while seen.withLock({ $0.count }) < commits && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        watcher.cancel()
        do { try consumer.stop() } catch { print("warning: the history consumer did not stop cleanly: \(error)") }
        try? consumer.unregister()

        var committed: [Int64: Int64] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let words = line.split(separator: " ")
            if words.count == 3, words[0] == "committed", let n = Int64(words[1]), let t = Int64(words[2]) { committed[n] = t }
        }
        let visible = seen.withLock { $0 }
        let latencies = committed.compactMap { n, t in visible[n].map { Double($0 - t) / 1e6 } }.sorted()
        let missing = committed.count - latencies.count
        print("commit in process B → visible in process A's main context, \(committed.count) commits, \(format(pause * 1000, 0)) ms apart")
        print("  median \(format(percentile(latencies, 0.5))) ms, p90 \(format(percentile(latencies, 0.9))) ms, "
              + "p99 \(format(percentile(latencies, 0.99))) ms, max \(format(latencies.last ?? .nan)) ms"
              + (missing > 0 ? ", \(missing) never seen" : ""))
        print("  goal p99 < 100 ms: \(percentile(latencies, 0.99) < 100 && missing == 0 ? "met" : "NOT met")")
        await main.perform { holder.account = nil }
    }

    /// Process B: commits `commits` times, printing "committed N <ns>" after each.
    static func write(path: String, commits: Int, pause: Double) throws {
        let coordinator = try BenchModel.coordinator(at: path, history: true)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "process-B")
        context.transactionAuthor = "latency-bench"
        var lines: [String] = []
        try context.performAndWait {
            guard let account = try context.fetch(FetchRequest<BenchAccount>(fetchLimit: 1)).first else {
                throw BenchError("no account to update")
            }
            for n in 1...commits {
                account.sequence = Int64(n)
                try context.save()
                lines.append("committed \(n) \(monotonicNanoseconds())")
                // Jittered pauses, so commits do not fall in step with A's checks.
                Thread.sleep(forTimeInterval: pause * Double.random(in: 0.5...1.5))
            }
        }
        print(lines.joined(separator: "\n"))
    }

    /// @unchecked Sendable: `account` is only touched on the main context's queue.
    final class Holder: @unchecked Sendable { var account: BenchAccount? }
}
