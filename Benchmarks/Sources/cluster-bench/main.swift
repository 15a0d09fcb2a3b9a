// cluster-bench: issue 15's benchmarks on a cluster of this machine (scripts/cluster.sh, in a
// folder of its own under /tmp, on ports of its own).
//   1. a commit on one server → visible in another server's main context, over PostgreSQL
//      (NOTIFY, then history): p50/p99 over 1,000 commits; goal p99 < 50 ms;
//   2. the dashboard's pages through nginx, 1 server against 3 (wrk), interleaved over rounds.
//
// Usage: cluster-bench --invoices PATH [--commits N] [--pause SECONDS] [--rounds N]
//                      [--duration SECONDS] [--threads N] [--connections N] [--port-base N]
import Foundation

func value(_ flag: String) -> String? {
    guard let i = CommandLine.arguments.firstIndex(of: flag), i + 1 < CommandLine.arguments.count else { return nil }
    return CommandLine.arguments[i + 1]
}

guard let invoices = value("--invoices") else {
    print("cluster-bench: give --invoices PATH (a release build of invoices; make bench-cluster does)")
    exit(64)
}
let commits = value("--commits").flatMap(Int.init) ?? 1_000
let pause = value("--pause").flatMap(Double.init) ?? 0.01
let rounds = value("--rounds").flatMap(Int.init) ?? 2
let duration = value("--duration").flatMap(Int.init) ?? 5
let threads = value("--threads").flatMap(Int.init) ?? 2
let connections = value("--connections").flatMap(Int.init) ?? 32
let portBase = value("--port-base").flatMap(Int.init) ?? 18_400
let folder = URL(fileURLWithPath: "/tmp/cluster-bench-\(UUID().uuidString.prefix(8))")
let cluster = ClusterScript(directory: folder, invoices: invoices, postgreSQLPort: portBase, balancerPort: portBase + 1,
                            serverPorts: [portBase + 2, portBase + 3, portBase + 4])

func report(_ figures: [String: [Int: [BalancerBenchmark.Figure]]]) {
    print("dashboard through nginx, median of rounds (req/s, p99 ms):")
    for page in BalancerBenchmark.pages {
        let one = figures[page]?[1] ?? [], three = figures[page]?[3] ?? []
        let rate1 = median(one.map(\.requestsPerSecond)), rate3 = median(three.map(\.requestsPerSecond))
        print("  \(page): 1 server \(format(rate1, 0)) req/s (p99 \(format(median(one.map(\.p99Milliseconds)))) ms), "
              + "3 servers \(format(rate3, 0)) req/s (p99 \(format(median(three.map(\.p99Milliseconds)))) ms), "
              + "×\(format(rate3 / rate1, 2))")
    }
}

Task {
    var status: Int32 = 0
    do {
        try cluster.run("start-postgresql")
        print("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores; cluster in \(folder.path)")
        // One server seeds the demo data (200 clients, 2,000 invoices) and makes the tables.
        try cluster.run("start", servers: 1)
        try cluster.run("stop-web")
        let latencies = try await VisibilityBenchmark.run(storeURL: cluster.storeURL, commits: commits, pause: pause)
        print("commit on server A → visible in server B's main context (PostgreSQL, NOTIFY + history), "
              + "\(latencies.count) commits, \(format(pause * 1000, 0)) ms apart:")
        let p99 = percentile(latencies, 0.99)
        print("  p50 \(format(percentile(latencies, 0.5))) ms, p90 \(format(percentile(latencies, 0.9))) ms, "
              + "p99 \(format(p99)) ms, max \(format(latencies.last ?? .nan)) ms")
        print("  goal p99 < 50 ms: \(p99 < 50 && latencies.count == commits ? "met" : "NOT met")")
        report(try BalancerBenchmark.run(cluster: cluster, rounds: rounds, duration: duration, threads: threads,
                                         connections: connections))
    } catch {
        print("cluster-bench failed: \(error)")
        status = 1
    }
    try? cluster.run("stop")
    try? FileManager.default.removeItem(at: folder)
    exit(status)
}
dispatchMain()
