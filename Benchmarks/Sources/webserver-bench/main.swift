// webserver-bench: the WebServer layer beside a bare libmicrohttpd C handler, in one process,
// both driven by wrk on 127.0.0.1. Prints requests/s and p99 per route, the ratio Swift / bare,
// and the resident memory before and after about a million requests through the Swift server.
//
//   cd Benchmarks && swift build -c release --product webserver-bench && .build/release/webserver-bench
//   options: --duration 10 (seconds per run) --connections 64 --threads 2 --rounds 3
//            --memory-requests 1000000; --render-only 1 prints the CPU time of one template render

import CBareMHD
import Foundation
import WebServer

struct Options {
    var duration = 10
    var connections = 64
    var threads = 2
    var rounds = 3
    var memoryRequests = 1_000_000

    init(arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let flag = iterator.next() {
            guard let value = iterator.next().flatMap(Int.init) else { fatalError("\(flag) needs a number") }
            switch flag {
            case "--duration": duration = value
            case "--connections": connections = value
            case "--threads": threads = value
            case "--rounds": rounds = value
            case "--memory-requests": memoryRequests = value
            case "--render-only", "--leak-check": break
            default: fatalError("unknown option \(flag)")
            }
        }
    }
}

struct WrkResult {
    var requestsPerSecond: Double
    var p99Milliseconds: Double
    var requests: Int
    var errors: String?
    /// CPU time (user + system) this process spent per request during the run: the servers'
    /// own cost, which load from other processes on the machine does not inflate much.
    var cpuMicrosecondsPerRequest = Double.nan
}

/// User + system CPU time of this process, in microseconds.
func processCPUMicroseconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
}

/// Runs wrk once; the run is bounded by wrk's own duration plus a watchdog.
func wrk(_ url: String, options: Options, duration: Int? = nil) throws -> WrkResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/wrk")
    let seconds = duration ?? options.duration
    process.arguments = ["-t\(options.threads)", "-c\(options.connections)", "-d\(seconds)s", "--latency", url]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    let cpuBefore = processCPUMicroseconds()
    try process.run()
    let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds + 30), execute: watchdog)
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    watchdog.cancel()
    var result = parse(output)
    result.cpuMicrosecondsPerRequest = (processCPUMicroseconds() - cpuBefore) / Double(max(result.requests, 1))
    return result
}

func parse(_ output: String) -> WrkResult {
    var result = WrkResult(requestsPerSecond: 0, p99Milliseconds: .nan, requests: 0, errors: nil)
    for line in output.split(separator: "\n") {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        if line.hasPrefix("Requests/sec:"), let value = fields.last.flatMap({ Double($0) }) {
            result.requestsPerSecond = value
        } else if fields.first == "99%", fields.count == 2 {
            result.p99Milliseconds = milliseconds(String(fields[1]))
        } else if line.contains("requests in"), let count = fields.first.flatMap({ Int($0) }) {
            result.requests = count
        } else if line.contains("Non-2xx") || line.contains("Socket errors") {
            result.errors = (result.errors.map { $0 + "; " } ?? "") + line.trimmingCharacters(in: .whitespaces)
        }
    }
    return result
}

/// wrk prints latencies as 812.00us, 7.05ms or 1.20s.
func milliseconds(_ text: String) -> Double {
    if text.hasSuffix("us"), let value = Double(text.dropLast(2)) { return value / 1000 }
    if text.hasSuffix("ms"), let value = Double(text.dropLast(2)) { return value }
    if text.hasSuffix("s"), let value = Double(text.dropLast(1)) { return value * 1000 }
    return .nan
}

/// Resident set size of this process, in MiB.
func residentMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
          let kib = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap({ Double($0) })
    else { return .nan }
    return kib / 1024
}

func format(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }

// MARK: - Servers

let options = Options(arguments: CommandLine.arguments)
guard FileManager.default.isExecutableFile(atPath: "/usr/bin/wrk") else {
    print("webserver-bench needs wrk: apt-get install -y wrk (or make deps-bench)")
    exit(1)
}

guard let bare = cbaremhd_start(0, 2, 0), let bareWithHeaders = cbaremhd_start(0, 2, 1) else {
    fatalError("bare libmicrohttpd daemon did not start")
}
let barePort = Int(cbaremhd_port(bare))
let bareWithHeadersPort = Int(cbaremhd_port(bareWithHeaders))

// A template page like the dashboard's: a layout, a partial, a table of 20 escaped rows.
let templates = FileManager.default.temporaryDirectory.appendingPathComponent("webserver-bench-\(getpid())")
try FileManager.default.createDirectory(at: templates.appendingPathComponent("partials"), withIntermediateDirectories: true)
try """
    <!DOCTYPE html><html><head><title>{{title}}</title></head><body>{{> partials/nav}}{{{content}}}</body></html>
    """.write(to: templates.appendingPathComponent("layout.mustache"), atomically: true, encoding: .utf8)
try "<nav><a href=\"/\">{{site}}</a></nav>".write(to: templates.appendingPathComponent("partials/nav.mustache"),
                                                    atomically: true, encoding: .utf8)
try """
    <h1>{{title}}</h1><table>{{#rows}}<tr><td>{{number}}</td><td>{{client}}</td><td>{{amount}}</td></tr>{{/rows}}</table>
    """.write(to: templates.appendingPathComponent("invoices.mustache"), atomically: true, encoding: .utf8)
defer { try? FileManager.default.removeItem(at: templates) }

struct Row: Sendable { var number: Int; var client: String; var amount: String }
struct Page: Sendable { var title: String; var site: String; var rows: [Row] }
let page = Page(title: "Invoices", site: "Invoices & Co",
                rows: (1...20).map { Row(number: $0, client: "Client <\($0)>", amount: "\($0 * 10).00 EUR") })
let renderer = try TemplateRenderer(directory: templates.path)

/// CPU time of one render, measured on this thread (robust to other load on the machine).
func measureRender(_ count: Int) throws -> Double {
    var start = timespec()
    var end = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
    for _ in 0..<count { _ = try renderer.render("invoices", page) }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
    return (Double(end.tv_sec - start.tv_sec) * 1e6 + Double(end.tv_nsec - start.tv_nsec) / 1e3) / Double(count)
}
if CommandLine.arguments.contains("--render-only") {
    _ = try measureRender(100)
    print("template render: \(format(try measureRender(2000), 1)) µs CPU per page")
    exit(0)
}

let router = Router()
router.get("/plain") { _ in .text("Hello, World!") }
// The same answer from an asynchronous handler: the connection is suspended, a task runs it,
// the connection is resumed.
router.get("/async") { _ async in
    await Task.yield()
    return .text("Hello, World!")
}
router.get("/template") { _ in .html(try renderer.render("invoices", page)) }
let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threadCount: 2, logsRequests: false),
                        router: router)
try server.start()
let swiftPort = server.port
// The same routes with asynchronous handlers run by blocking the server thread instead.
let blockingServer = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threadCount: 2, logsRequests: false,
                                                     asyncHandlers: .blockThread), router: router)
try blockingServer.start()
let blockingPort = blockingServer.port
// And without the default security headers (5 header lines, about 250 bytes per response), to
// tell the layer's own cost from the cost of what it sends.
let plainHeadersServer = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threadCount: 2, securityHeaders: [:],
                                                         logsRequests: false), router: router)
try plainHeadersServer.start()
let plainHeadersPort = plainHeadersServer.port

// --leak-check N: hammer each route alone for N runs, printing RSS after each, to find which
// one (if any) makes memory grow.
if let flag = CommandLine.arguments.firstIndex(of: "--leak-check"), let runs = Int(CommandLine.arguments[flag + 1]) {
    for (name, url) in [("plain", "http://127.0.0.1:\(swiftPort)/plain"), ("async", "http://127.0.0.1:\(swiftPort)/async"),
                        ("blocking", "http://127.0.0.1:\(blockingPort)/async"),
                        ("template", "http://127.0.0.1:\(swiftPort)/template")] {
        var total = 0
        var line = "\(name):"
        for _ in 0..<runs {
            total += try wrk(url, options: options, duration: options.duration).requests
            line += " \(total / 1000)k→\(format(residentMiB()))"
        }
        print(line)
    }
    exit(0)
}

print("webserver-bench: wrk -t\(options.threads) -c\(options.connections) -d\(options.duration)s --latency, "
      + "\(options.rounds) rounds, best of each; \(ProcessInfo.processInfo.activeProcessorCount) cores")
print("bare libmicrohttpd on :\(barePort), WebServer on :\(swiftPort)")

// Warm up every server and route, so that the baseline reading below includes each one's
// buffers, thread stacks and caches; growth after it would be a leak.
_ = try wrk("http://127.0.0.1:\(barePort)/", options: options, duration: 2)
_ = try wrk("http://127.0.0.1:\(bareWithHeadersPort)/", options: options, duration: 2)
var swiftRequests = 0
for url in ["http://127.0.0.1:\(swiftPort)/plain", "http://127.0.0.1:\(swiftPort)/async",
            "http://127.0.0.1:\(swiftPort)/template", "http://127.0.0.1:\(blockingPort)/async",
            "http://127.0.0.1:\(plainHeadersPort)/plain"] {
    swiftRequests += try wrk(url, options: options, duration: 2).requests
}
let rssBefore = residentMiB()
var rssReadings: [(requests: Int, mebibytes: Double)] = [(swiftRequests, rssBefore)]

var best: [String: WrkResult] = [:]
var lastBare = 0.0
/// plain / bare of each round: the two runs are back to back, so load from elsewhere on the
/// machine tends to touch both alike.
var roundRatios: [Double] = []
/// plain / bare sending the same header lines: the Swift layer's own share.
var sameHeaderRatios: [Double] = []
@MainActor func keepBest(_ name: String, _ result: WrkResult) {
    if let errors = result.errors { print("  \(name): \(errors)") }
    if best[name].map({ result.requestsPerSecond > $0.requestsPerSecond }) ?? true { best[name] = result }
}
for round in 1...options.rounds {
    print("round \(round)/\(options.rounds)...")
    let bareRun = try wrk("http://127.0.0.1:\(barePort)/", options: options)
    lastBare = bareRun.requestsPerSecond
    keepBest("bare", bareRun)
    let plain = try wrk("http://127.0.0.1:\(swiftPort)/plain", options: options)
    swiftRequests += plain.requests
    keepBest("plain", plain)
    roundRatios.append(plain.requestsPerSecond / lastBare)
    let bareHeaders = try wrk("http://127.0.0.1:\(bareWithHeadersPort)/", options: options)
    keepBest("bareHeaders", bareHeaders)
    sameHeaderRatios.append(plain.requestsPerSecond / bareHeaders.requestsPerSecond)
    let noHeaders = try wrk("http://127.0.0.1:\(plainHeadersPort)/plain", options: options)
    swiftRequests += noHeaders.requests
    keepBest("noHeaders", noHeaders)
    let async = try wrk("http://127.0.0.1:\(swiftPort)/async", options: options)
    swiftRequests += async.requests
    keepBest("async", async)
    let blocking = try wrk("http://127.0.0.1:\(blockingPort)/async", options: options)
    swiftRequests += blocking.requests
    keepBest("blocking", blocking)
    let template = try wrk("http://127.0.0.1:\(swiftPort)/template", options: options)
    swiftRequests += template.requests
    keepBest("template", template)
    print("  bare \(format(lastBare, 0))/s, plain \(format(plain.requestsPerSecond, 0))/s "
          + "(\(format(plain.requestsPerSecond / lastBare * 100, 0))%), bare with the same headers \(format(bareHeaders.requestsPerSecond, 0))/s, without security headers \(format(noHeaders.requestsPerSecond, 0))/s, async \(format(async.requestsPerSecond, 0))/s, "
          + "async blocking \(format(blocking.requestsPerSecond, 0))/s, template \(format(template.requestsPerSecond, 0))/s")
    rssReadings.append((swiftRequests, residentMiB()))
}
// Top up to the requested number of requests through the Swift server, for the memory check.
while swiftRequests < options.memoryRequests {
    let rate = max(best["plain"]?.requestsPerSecond ?? 50_000, 10_000)
    let seconds = min(10, max(2, Int((Double(options.memoryRequests - swiftRequests) / rate).rounded(.up))))
    swiftRequests += try wrk("http://127.0.0.1:\(swiftPort)/plain", options: options, duration: seconds).requests
    rssReadings.append((swiftRequests, residentMiB()))
}
let rssAfter = residentMiB()

// MARK: - Report

let bareRate = best["bare"]?.requestsPerSecond ?? .nan
print("")
print("| route                                | requests/s | p99 (ms) | vs bare | server CPU µs/request |")
print("|--------------------------------------|-----------:|---------:|--------:|----------------------:|")
for (name, label) in [("bare", "bare C handler (MHD, epoll, 2)"), ("bareHeaders", "bare C, WebServer's header lines"),
                      ("plain", "WebServer plain route"),
                      ("noHeaders", "WebServer plain, no security headers"),
                      ("async", "WebServer async, suspend (default)"), ("blocking", "WebServer async, block thread"),
                      ("template", "WebServer template route")] {
    guard let result = best[name] else { continue }
    let ratio = name == "bare" ? "100%" : format(result.requestsPerSecond / bareRate * 100, 0) + "%"
    print("| \(label.padding(toLength: 36, withPad: " ", startingAt: 0)) | \(format(result.requestsPerSecond, 0).leftPad(10)) "
          + "| \(format(result.p99Milliseconds, 2).leftPad(8)) | \(ratio.leftPad(7)) "
          + "| \(format(result.cpuMicrosecondsPerRequest, 1).leftPad(21)) |")
}
let bestRatio = (best["plain"]?.requestsPerSecond ?? 0) / bareRate
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
let medianRatio = median(roundRatios)
print("")
print("plain route / bare: \(format(bestRatio * 100, 0))% best against best; per round "
      + roundRatios.map { format($0 * 100, 0) + "%" }.joined(separator: ", ")
      + ", median \(format(medianRatio * 100, 0))% (goal: at least 80%): " + (medianRatio >= 0.8 ? "met" : "NOT met"))
print("plain route / bare sending the same header lines: per round "
      + sameHeaderRatios.map { format($0 * 100, 0) + "%" }.joined(separator: ", ")
      + ", median \(format(median(sameHeaderRatios) * 100, 0))%")
let growth = (rssAfter - rssBefore) / rssBefore * 100
print("memory: RSS \(format(rssBefore)) MiB after warm-up, \(format(rssAfter)) MiB after \(swiftRequests) requests "
      + "through WebServer (\(growth >= 0 ? "+" : "")\(format(growth))%); readings (requests: MiB): "
      + rssReadings.map { "\($0.requests): \(format($0.mebibytes))" }.joined(separator: ", "))

await server.shutdown()
await blockingServer.shutdown()
await plainHeadersServer.shutdown()
cbaremhd_stop(bare)
cbaremhd_stop(bareWithHeaders)

extension String {
    func leftPad(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
