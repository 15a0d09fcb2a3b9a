import Foundation
import InvoicesApp
import ObjectGraph
import Synchronization

/// Latency from a commit on one server to the change in another server's main context, over
/// PostgreSQL: two dashboard stacks (each its own coordinator and connections, as two
/// `invoices serve` have), the second merging the first's commits from history on NOTIFY.
/// Server A renames one client N times through an import context; B's main context holds the
/// client, and each remote change it merges is timed against A's commit.
enum VisibilityBenchmark {
    static func run(storeURL: String, commits: Int, pause: Double) async throws -> [Double] {
        let a = try InvoicesStack(postgreSQL: storeURL), b = try InvoicesStack(postgreSQL: storeURL)
        try b.startMergingRemoteChanges(as: "bench-\(UUID().uuidString.prefix(8))")
        defer { b.stopMergingRemoteChanges() }
        let writer = a.newImportContext(name: "server A")
        let id = try await writer.perform {
            let client = Client(context: writer)
            client.name = "Latency 0"
            try writer.save()
            return client.objectID
        }
        let main = b.main, holder = Holder()
        // B's main holds the client before A starts: its merges refresh it.
        let deadline = ContinuousClock.now + .seconds(10)
        while await main.perform({ (try? main.existingObject(with: id, as: Client.self)) == nil }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        try await main.perform { holder.client = try main.existingObject(with: id, as: Client.self) }

        let seen = Mutex<[Int: Int64]>([:])
        let changes = main.changes
        let watcher = Task {
            var highest = 0
            for await change in changes where change.origin == .remote {
                _ = change
                let name = await main.perform { holder.client?.name ?? "" }
                let now = monotonicNanoseconds()
                if let n = Int(name.dropFirst("Latency ".count)), n > highest {
                    seen.withLock { for k in (highest + 1)...n { $0[k] = now } }
                    highest = n
                }
                if highest >= commits { return }
            }
        }
        var committed: [Int: Int64] = [:]
        for n in 1...commits {
            try await writer.perform {
                let client = try writer.existingObject(with: id, as: Client.self)
                client.name = "Latency \(n)"
                try writer.save()
            }
            committed[n] = monotonicNanoseconds()
            // Jittered pauses, so commits do not fall in step with B's merges.
            try await Task.sleep(for: .seconds(pause * Double.random(in: 0.5...1.5)))
        }
        let waitEnd = ContinuousClock.now + .seconds(5)
        while seen.withLock({ $0.count }) < commits && ContinuousClock.now < waitEnd {
            try await Task.sleep(for: .milliseconds(10))
        }
        watcher.cancel()
        await main.perform { holder.client = nil }
        let visible = seen.withLock { $0 }
        let missing = commits - visible.count
        if missing > 0 { print("  PROBLEM: \(missing) of \(commits) commits never seen in B's main context") }
        return committed.compactMap { n, t in visible[n].map { Double($0 - t) / 1e6 } }.sorted()
    }

    /// @unchecked Sendable: `client` is only touched on the main context's queue.
    final class Holder: @unchecked Sendable { var client: Client? }
}
