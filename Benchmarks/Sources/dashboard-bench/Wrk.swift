import Foundation

// MARK: - wrk

struct WrkResult {
    var requestsPerSecond = 0.0
    var p99Milliseconds = Double.nan
    var p50Milliseconds = Double.nan
    var requests = 0
    /// wrk's "Non-2xx or 3xx responses" and "Socket errors" lines, if any.
    var errors: String?
}

/// Runs wrk once, bounded by its own duration plus a watchdog (as webserver-bench does).
/// `single`: one connection on one thread, for a page's own latency without queueing behind others.
/// `script`: a Lua file that makes each request's path (the distinct-reads mode).
func wrk(_ url: String, duration: Int? = nil, single: Bool = false, script: String? = nil) throws -> WrkResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/wrk")
    let seconds = duration ?? options.duration
    process.arguments = (single ? ["-t1", "-c1"] : ["-t\(options.threads)", "-c\(options.connections)"])
        // A 10 s timeout rather than wrk's 2 s: a slow page's requests then count in the
        // percentiles instead of being dropped from them as socket errors.
        + ["-d\(seconds)s", "--timeout", script == nil ? "10s" : "30s", "--latency"] + (script.map { ["-s", $0] } ?? []) + [url]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds + 30), execute: watchdog)
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    watchdog.cancel()
    return parse(output)
}

/// Waits until the dashboard has answered what earlier wrk runs left queued (a slow page can
/// leave 64 requests behind on the main queue), so the next run does not start behind them.
func settle(_ url: String) {
    _ = fetch(url)
    usleep(200_000)
}

func parse(_ output: String) -> WrkResult {
    var result = WrkResult()
    for line in output.split(separator: "\n") {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        if line.hasPrefix("Requests/sec:"), let value = fields.last.flatMap({ Double($0) }) {
            result.requestsPerSecond = value
        } else if fields.first == "50%", fields.count == 2 {
            result.p50Milliseconds = milliseconds(String(fields[1]))
        } else if fields.first == "99%", fields.count == 2 {
            result.p99Milliseconds = milliseconds(String(fields[1]))
        } else if line.contains("requests in"), let count = fields.first.flatMap({ Int($0) }) {
            result.requests = count
        } else if line.contains("Non-2xx") || line.contains("Socket errors") {
            result.errors = (result.errors.map { $0 + "; " } ?? "") + line.trimmingCharacters(in: .whitespaces)
        }
    }
    if result.requests == 0 { result.errors = (result.errors.map { $0 + "; " } ?? "") + "no requests completed" }
    return result
}

/// wrk prints latencies as 812.00us, 7.05ms or 1.20s.
func milliseconds(_ text: String) -> Double {
    if text.hasSuffix("us"), let value = Double(text.dropLast(2)) { return value / 1000 }
    if text.hasSuffix("ms"), let value = Double(text.dropLast(2)) { return value }
    if text.hasSuffix("s"), let value = Double(text.dropLast(1)) { return value * 1000 }
    return .nan
}

func format(_ value: Double, _ digits: Int = 1) -> String { value.isNaN ? "n/a" : String(format: "%.\(digits)f", value) }

extension String {
    func leftPad(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
    func rightPad(_ width: Int) -> String { padding(toLength: max(width, count), withPad: " ", startingAt: 0) }
}

/// One GET with curl: the status and the body (to check a page before timing it).
func fetch(_ url: String) -> (status: Int, body: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    process.arguments = ["-s", "--max-time", "30", "-w", "\n%{http_code}", url]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return (0, "") }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard let newline = output.lastIndex(of: "\n") else { return (0, output) }
    return (Int(output[output.index(after: newline)...]) ?? 0, String(output[..<newline]))
}

/// Problems worth reporting, gathered along the way and printed at the end.
nonisolated(unsafe) var problems: [String] = []
func problem(_ text: String) {
    problems.append(text)
    print("  PROBLEM: \(text)")
}
