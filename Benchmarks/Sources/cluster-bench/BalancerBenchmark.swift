import Foundation

/// The dashboard's pages through nginx with one server and with three, on one database (demo
/// data), interleaved over rounds: wrk with `threads` threads and `connections` connections
/// per page, requests per second and p99.
enum BalancerBenchmark {
    struct Figure {
        var requestsPerSecond: Double
        var p99Milliseconds: Double
        var errors: String?
    }

    static let pages = ["/clients", "/invoices", "/invoices?page=5"]

    /// Per page and server count, one figure per round.
    static func run(cluster: ClusterScript, rounds: Int, duration: Int, threads: Int,
                    connections: Int) throws -> [String: [Int: [Figure]]] {
        var figures: [String: [Int: [Figure]]] = [:]
        for round in 1...rounds {
            for servers in [1, 3] {
                try cluster.run("start", servers: servers)
                defer { try? cluster.run("stop-web") }
                for page in pages {
                    let url = cluster.balancerURL + page
                    _ = try wrk(url, duration: 1, threads: 1, connections: 4)   // warm: kept pages, connections
                    let figure = try wrk(url, duration: duration, threads: threads, connections: connections)
                    figures[page, default: [:]][servers, default: []].append(figure)
                    print("  round \(round), \(servers) server\(servers == 1 ? "" : "s"), \(page): "
                          + "\(format(figure.requestsPerSecond, 0)) req/s, p99 \(format(figure.p99Milliseconds)) ms"
                          + (figure.errors.map { " (\($0))" } ?? ""))
                }
            }
        }
        return figures
    }

    static func wrk(_ url: String, duration: Int, threads: Int, connections: Int) throws -> Figure {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/wrk")
        process.arguments = ["-t\(threads)", "-c\(connections)", "-d\(duration)s", "--timeout", "10s", "--latency", url]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var figure = Figure(requestsPerSecond: 0, p99Milliseconds: .nan)
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if line.hasPrefix("Requests/sec:"), let value = fields.last.flatMap({ Double($0) }) {
                figure.requestsPerSecond = value
            } else if fields.first == "99%", fields.count == 2 {
                figure.p99Milliseconds = milliseconds(String(fields[1]))
            } else if line.contains("Non-2xx") || line.contains("Socket errors") {
                figure.errors = (figure.errors.map { $0 + "; " } ?? "") + line.trimmingCharacters(in: .whitespaces)
            }
        }
        return figure
    }

    /// wrk prints latencies as 812.00us, 7.05ms or 1.20s.
    static func milliseconds(_ text: String) -> Double {
        if text.hasSuffix("us"), let value = Double(text.dropLast(2)) { return value / 1000 }
        if text.hasSuffix("ms"), let value = Double(text.dropLast(2)) { return value }
        if text.hasSuffix("s"), let value = Double(text.dropLast(1)) { return value * 1000 }
        return .nan
    }
}
