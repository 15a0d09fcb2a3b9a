import Foundation

/// `scripts/cluster.sh` with the benchmark's own folder and ports (never `.build-cluster/`).
struct ClusterScript {
    let directory: URL
    let invoices: String
    let postgreSQLPort: Int
    let balancerPort: Int
    let serverPorts: [Int]
    var storeURL: String { "postgresql://postgres@127.0.0.1:\(postgreSQLPort)/invoices" }
    var balancerURL: String { "http://127.0.0.1:\(balancerPort)" }

    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/cluster.sh").path

    /// Runs `command` (start, stop, start-postgresql, stop-web) with `servers` of the ports.
    /// Through `system` rather than Foundation's `Process`, whose wait on Linux can miss the
    /// child's end and hang.
    func run(_ command: String, servers: Int = 3) throws {
        let settings = [
            "CLUSTER_DIR": directory.path, "CLUSTER_PG_PORT": "\(postgreSQLPort)", "CLUSTER_LB_PORT": "\(balancerPort)",
            "CLUSTER_PORTS": serverPorts.prefix(servers).map(String.init).joined(separator: " "), "CLUSTER_INVOICES": invoices,
        ]
        let line = settings.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
            + " /bin/sh '\(Self.script)' \(command) >/dev/null"
        let status = system(line)
        guard status == 0 else {
            throw BenchError("scripts/cluster.sh \(command) ended with \(status); see \(directory.path)")
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func monotonicNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

func median(_ values: [Double]) -> Double { percentile(values.sorted(), 0.5) }

func format(_ value: Double, _ digits: Int = 1) -> String { value.isNaN ? "n/a" : String(format: "%.\(digits)f", value) }
