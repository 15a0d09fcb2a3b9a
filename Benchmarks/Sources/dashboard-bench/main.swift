// dashboard-bench: the Invoices dashboard's pages beside the plain WebServer route, driven by wrk
// on 127.0.0.1, in one run (issue 6, "Benchmarks"):
//   1. `invoices serve` on a temporary database filled with demo data (200 clients, 2,000 invoices);
//   2. the same on a database of 100,000 invoices over 10,000 clients, made by `invoices import`
//      of a generated CSV file before timing (the export's shape: about 3 line items an invoice,
//      payments on paid ones), then 50 invoices rendered as PDF, one after another;
//   3. while `invoices import` of another 100,000 invoices runs in a separate process against the
//      served database, /clients and /invoices?status=sent again (goal: p99 under 20 ms).
// Prints requests/s, p99 and the ratio to the plain route (a WebServer route in this process,
// measured in the same rounds) as a table, and whether each goal is met. Each page is also run
// alone on one connection (wrk -t1 -c1): its own p99, without queueing behind 63 others.
// Exit status: 0 when every check passed (every page 200, no non-2xx/3xx or socket errors, both
// imports complete, the server sees the imported rows), 3 when one did not (listed under
// "problems"), 1 when the run could not be done. Goals not met do not change the exit status.
//
// It builds nothing: it runs a release-built `invoices` binary as a child process.
//
//   swift build -c release --product invoices          (in the repository root)
//   cd Benchmarks && swift build -c release --product dashboard-bench \
//     && .build/release/dashboard-bench --invoices ../.build/release/invoices
//   options: --duration 5 (seconds per wrk run) --connections 64 --threads 2 --rounds 2
//            --rows 100000 --clients 10000 --import-timeout 600 --keep 1 (keep the temporary folder)
//            --mode distinct: instead of the above, every request a different read (issue 18): wrk at
//            --connections over a mix of invoice searches, status and currency filters, client searches
//            and client records at --rows invoices, with the server's CPU use; --database PATH copies
//            a database made before instead of generating and importing one.
//            --mode import: `invoices import` of a generated file of --rows invoices into a new
//            database, --rounds times: seconds, rows/s and the importer's peak RSS (issue 18).

import Foundation
import WebServer

// MARK: - Options

struct Options {
    var invoices = "../.build/release/invoices"
    var duration = 5
    var connections = 64
    var threads = 2
    var rounds = 2
    var rows = 100_000
    var clients = 10_000
    var importTimeout = 600
    var keep = false
    /// "pages" (the kept pages, as before), "distinct" (every request a different read) or
    /// "import" (`invoices import` of a generated file, timed).
    var mode = "pages"
    /// A database to copy instead of generating and importing one (distinct mode).
    var database: String?

    init(arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let flag = iterator.next() {
            guard let value = iterator.next() else { Self.usage("\(flag) needs a value") }
            if flag == "--invoices" { invoices = value; continue }
        if flag == "--mode", ["pages", "distinct", "import"].contains(value) { mode = value; continue }
        if flag == "--database" { database = value; continue }
            guard let number = Int(value), number >= 0 else { Self.usage("\(flag) needs a number, got \(value)") }
            switch flag {
            case "--duration": duration = max(1, number)
            case "--connections": connections = max(1, number)
            case "--threads": threads = max(1, number)
            case "--rounds": rounds = max(1, number)
            case "--rows": rows = max(1, number)
            case "--clients": clients = max(1, number)
            case "--import-timeout": importTimeout = max(10, number)
            case "--keep": keep = number != 0
            default: Self.usage("unknown option \(flag)")
            }
        }
    }

    static func usage(_ message: String) -> Never {
        FileHandle.standardError.write(Data("""
            dashboard-bench: \(message)
            usage: dashboard-bench [--invoices PATH] [--duration S] [--connections N] [--threads N] [--rounds N]
                                   [--rows N] [--clients N] [--import-timeout S] [--keep 0|1]
                                   [--mode pages|distinct|import] [--database PATH (distinct: copy instead of importing)]

            """.utf8))
        exit(64)
    }
}

let options = Options(arguments: CommandLine.arguments)
/// Unbuffered, so progress shows as it happens, also through a pipe.
func print(_ line: String = "") { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
let invoicesPath = URL(fileURLWithPath: options.invoices).standardizedFileURL.path
guard FileManager.default.isExecutableFile(atPath: invoicesPath) else {
    print("dashboard-bench: no invoices binary at \(invoicesPath); build it first in the repository root:")
    print("  swift build -c release --product invoices")
    exit(1)
}
for tool in ["/usr/bin/wrk", "/usr/bin/curl"] where !FileManager.default.isExecutableFile(atPath: tool) {
    print("dashboard-bench needs \(tool): apt-get install -y wrk curl (or make deps-bench)")
    exit(1)
}

// MARK: - Plain route (in this process, as in webserver-bench)

let router = Router()
router.get("/plain") { _ in .text("Hello, World!") }
let plainServer = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threadCount: 2, logsRequests: false),
                             router: router)
try plainServer.start()
let plainURL = "http://127.0.0.1:\(plainServer.port)/plain"

let work = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-bench-\(getpid())")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)

print("dashboard-bench: wrk -t\(options.threads) -c\(options.connections) -d\(options.duration)s --latency, "
      + "\(options.rounds) round(s), best of each; \(ProcessInfo.processInfo.activeProcessorCount) cores")
print("invoices: \(invoicesPath)")
print("plain WebServer route (in this process): \(plainURL); temporary folder: \(work.path)")

// MARK: - Measuring

struct Row {
    var dataset: String
    var page: String
    var result: WrkResult
    /// Page / plain route, each the best of its rounds; nil when not compared.
    var ratio: Double?
    var p99Goal: Double
    var note: String = ""
    /// p99 with a single connection (wrk -t1 -c1): the page's own latency, without queueing.
    var singleP99 = Double.nan
}
var table: [Row] = []

/// Checks that a page answers 200 before it is timed.
func check(_ url: String) -> Bool {
    let (status, body) = fetch(url)
    if status != 200 {
        problem("GET \(url) answered \(status) (\(body.prefix(200)))")
        return false
    }
    return true
}

/// A client's pk from the first page of the client list.
func firstClientPK(_ base: String) -> Int? {
    let body = fetch(base + "/clients").body
    guard let range = body.range(of: #"href="/clients/([0-9]+)""#, options: .regularExpression) else { return nil }
    return Int(body[range].filter(\.isNumber))
}

/// Rounds of plain route then each page; the best of each (by requests/s), and its p99.
@MainActor func measure(dataset: String, base: String, pages: [(String, String)]) throws {
    var best: [String: WrkResult] = [:]
    var worstP99: [String: Double] = [:]
    func keep(_ name: String, _ result: WrkResult) {
        if let errors = result.errors { problem("\(dataset), \(name): \(errors)") }
        if best[name].map({ result.requestsPerSecond > $0.requestsPerSecond }) ?? true { best[name] = result }
        worstP99[name] = max(worstP99[name] ?? 0, result.p99Milliseconds)
    }
    let urls = pages.filter { check(base + $0.1) }
    // Warm-up: each page once briefly (caches, first renders).
    _ = try wrk(plainURL, duration: 1)
    for (_, path) in urls { settle(base + path); _ = try wrk(base + path, duration: 1) }
    for round in 1...options.rounds {
        let plain = try wrk(plainURL)
        keep("plain", plain)
        var line = "  round \(round)/\(options.rounds): plain \(format(plain.requestsPerSecond, 0))/s p99 \(format(plain.p99Milliseconds, 2)) ms"
        for (name, path) in urls {
            settle(base + path)
            let result = try wrk(base + path)
            keep(name, result)
            line += "; \(name) \(format(result.requestsPerSecond, 0))/s p99 \(format(result.p99Milliseconds, 2)) ms"
        }
        print(line)
    }
    // Each page alone on one connection: its own latency, without 63 others queued before it.
    var single: [String: WrkResult] = [:]
    for (name, path) in urls {
        settle(base + path)
        let result = try wrk(base + path, duration: min(3, options.duration), single: true)
        if let errors = result.errors { problem("\(dataset), \(name), 1 connection: \(errors)") }
        single[name] = result
    }
    print("  1 connection: " + urls.map { "\($0.0) p99 \(format(single[$0.0]?.p99Milliseconds ?? .nan, 2)) ms" }.joined(separator: "; "))
    let plainRate = best["plain"]?.requestsPerSecond ?? .nan
    table.append(Row(dataset: dataset, page: "plain WebServer route", result: best["plain"]!, ratio: 1, p99Goal: .nan))
    for (name, _) in urls {
        guard let result = best[name] else { continue }
        let worst = worstP99[name] ?? .nan
        table.append(Row(dataset: dataset, page: name, result: result, ratio: result.requestsPerSecond / plainRate,
                         p99Goal: 20, note: options.rounds > 1 ? "worst p99 \(format(worst, 2))" : "",
                         singleP99: single[name]?.p99Milliseconds ?? .nan))
    }
}

func pages(_ pk: Int?) -> [(String, String)] {
    var list = [("/clients (page of 50)", "/clients")]
    if let pk { list.append(("/clients/{pk} (pk \(pk))", "/clients/\(pk)")) } else { problem("no client pk found on /clients") }
    list.append(("/invoices?status=sent", "/invoices?status=sent"))
    return list
}

if options.mode == "distinct" || options.mode == "import" {
    let status = options.mode == "import" ? runImportTiming() : runDistinctReads()
    await plainServer.shutdown()
    print(problems.isEmpty ? "checks: every checked page answered 200; no wrk errors" : "problems (\(problems.count)):")
    for text in problems { print("  - " + text) }
    if options.keep { print("kept \(work.path)") } else { try? FileManager.default.removeItem(at: work) }
    exit(status)
}

var exitStatus: Int32 = 0
var pdfLine = "PDF: not timed"
var pdfGoalMet = false
do {
    // 1. Demo data.
    print("\n1. demo data: invoices serve on an empty database (fills it with demo data)")
    let demoServer = try ServeProcess(db: work.appendingPathComponent("demo.sqlite"), demoData: true,
                                      logURL: work.appendingPathComponent("serve-demo.log"))
    print("  " + demoServer.output.current.split(separator: "\n").joined(separator: " | "))
    try measure(dataset: "demo data", base: demoServer.base, pages: pages(firstClientPK(demoServer.base)))
    demoServer.stop()

    // 2. 100,000 invoices.
    let bigLabel = "\(options.rows / 1000)k invoices"
    let csvA = work.appendingPathComponent("invoices-a.csv")
    let csvB = work.appendingPathComponent("invoices-b.csv")
    let generated = Date()
    let rowsA = try writeCSV(to: csvA, rows: options.rows, clients: options.clients, prefix: "BENCH-A", seed: 1)
    try writeCSV(to: csvB, rows: options.rows, clients: options.clients, prefix: "BENCH-B", seed: 2)
    print("\n2. \(bigLabel): generated two CSV files of \(options.rows) invoices over \(options.clients) clients "
          + "(\(rowsA) line and payment rows in the first) in \(format(Date().timeIntervalSince(generated))) s")
    let bigDB = work.appendingPathComponent("big.sqlite")
    let firstImport = try ImportProcess(csv: csvA, db: bigDB, workDirectory: work, name: "import-a")
    let firstStatus = firstImport.wait(timeout: options.importTimeout)
    let firstRate = Double(options.rows) / firstImport.seconds
    print("  invoices import into a fresh database: exit \(firstStatus.map(String.init) ?? "timeout") "
          + "in \(format(firstImport.seconds)) s (\(format(firstRate, 0)) rows/s)")
    if firstStatus != 0 {
        problem("first import exited with \(firstStatus.map(String.init) ?? "timeout after \(options.importTimeout) s"):\n\(firstImport.summary())")
    }
    let bigServer = try ServeProcess(db: bigDB, demoData: false, logURL: work.appendingPathComponent("serve-big.log"))
    print("  " + bigServer.output.current.split(separator: "\n").joined(separator: " | "))
    try measure(dataset: bigLabel, base: bigServer.base, pages: pages(firstClientPK(bigServer.base)))
    let pdf = pdfSummary(timePDFs(base: bigServer.base))
    pdfLine = "\(bigLabel): " + pdf.line
    pdfGoalMet = pdf.met
    print("  " + pdfLine)

    // 3. While another 100,000 invoices are imported by another process into the served database.
    print("\n3. \(bigLabel) while invoices import of another \(options.rows) runs in another process on the served database")
    let before = fetch(bigServer.base + "/invoices.json?page_size=1")
    let secondImport = try ImportProcess(csv: csvB, db: bigDB, workDirectory: work, name: "import-b")
    sleep(1)
    let duringPages = [("/clients (page of 50)", "/clients"), ("/invoices?status=sent", "/invoices?status=sent")]
    var during: [(name: String, result: WrkResult, note: String, single: Double)] = []
    /// One wrk run while the import runs; says whether it ran throughout.
    func underImport(_ name: String, _ url: String, single: Bool) throws -> (WrkResult, String) {
        settle(url)
        let running = secondImport.isRunning
        let result = try wrk(url, duration: single ? min(3, options.duration) : nil, single: single)
        let stillRunning = secondImport.isRunning
        let label = name + (single ? ", 1 connection" : "")
        if let errors = result.errors { problem("during import, \(label): \(errors)") }
        let note = running && stillRunning ? "import running throughout"
            : running ? "import finished during the run" : "import had finished before the run"
        if !(running && stillRunning) { problem("during import, \(label): \(note); its p99 is not all under import") }
        print("  \(label): \(format(result.requestsPerSecond, 0))/s p99 \(format(result.p99Milliseconds, 2)) ms (\(note))")
        return (result, note)
    }
    for (name, path) in duringPages {
        let (result, note) = try underImport(name, bigServer.base + path, single: false)
        during.append((name, result, note, .nan))
    }
    for (index, (name, path)) in duringPages.enumerated() {
        let (result, note) = try underImport(name, bigServer.base + path, single: true)
        during[index].single = result.p99Milliseconds
        if note != "import running throughout" { during[index].note += "; 1 connection: " + note }
    }
    // The plain route last: whether the import still runs does not matter for it.
    let plainDuring = try wrk(plainURL)
    table.append(Row(dataset: "during import", page: "plain WebServer route", result: plainDuring, ratio: 1,
                     p99Goal: .nan, note: secondImport.isRunning ? "" : "import had finished"))
    for entry in during {
        table.append(Row(dataset: "during import", page: entry.name, result: entry.result,
                         ratio: entry.result.requestsPerSecond / plainDuring.requestsPerSecond, p99Goal: 20,
                         note: entry.note, singleP99: entry.single))
    }
    let secondStatus = secondImport.wait(timeout: options.importTimeout)
    print("  second import: exit \(secondStatus.map(String.init) ?? "timeout") after \(format(secondImport.seconds)) s "
          + "(\(format(Double(options.rows) / secondImport.seconds, 0)) rows/s, while being served and benchmarked)")
    if secondStatus != 0 {
        problem("second import exited with \(secondStatus.map(String.init) ?? "timeout after \(options.importTimeout) s"):\n\(secondImport.summary())")
    }
    // The server should see what the import committed within a second.
    sleep(2)
    let after = fetch(bigServer.base + "/invoices.json?page_size=1")
    func total(_ body: String) -> Int? {
        guard let range = body.range(of: #""totalCount"\s*:\s*[0-9]+"#, options: .regularExpression) else { return nil }
        return Int(body[range].split(separator: ":").last!.trimmingCharacters(in: .whitespaces))
    }
    if let t0 = total(before.body), let t1 = total(after.body) {
        print("  invoices seen by the running server: \(t0) before the import, \(t1) 2 s after it ended")
        if t1 - t0 != options.rows { problem("the server sees \(t1 - t0) new invoices, expected \(options.rows)") }
    } else {
        print("  (could not read totalCount from /invoices.json: status \(before.status)/\(after.status))")
    }
    bigServer.stop()
} catch {
    problem("\(error)")
    exitStatus = 1
}
await plainServer.shutdown()

// MARK: - Report

print("")
print("| data | page | requests/s | p99 (ms), \(options.connections) conn. | vs plain | goals (≥25% of plain, p99) | p99 (ms), 1 conn. | notes |")
print("|------|------|-----------:|---------:|---------:|------|---------:|-------|")
var goalsMet = true
for row in table {
    var goals = ""
    if !row.p99Goal.isNaN {
        var parts: [String] = []
        if row.dataset != "during import", let ratio = row.ratio {
            let ok = ratio >= 0.25
            parts.append(ok ? "ratio met" : "ratio NOT met")
            goalsMet = goalsMet && ok
        }
        let ok = row.result.p99Milliseconds < row.p99Goal
        parts.append("p99<\(Int(row.p99Goal)) " + (ok ? "met" : "NOT met"))
        goalsMet = goalsMet && ok
        goals = parts.joined(separator: ", ")
    }
    let errors = row.result.errors.map { "; " + $0 } ?? ""
    print("| \(row.dataset) | \(row.page) | \(format(row.result.requestsPerSecond, 0)) | "
          + "\(format(row.result.p99Milliseconds, 2)) | \(row.ratio.map { format($0 * 100, 0) + "%" } ?? "") | \(goals) | "
          + "\(row.singleP99.isNaN ? "" : format(row.singleP99, 2)) | \(row.note)\(errors) |")
}
print("")
print(pdfLine)
goalsMet = goalsMet && pdfGoalMet
print("goals: " + (goalsMet ? "all met" : "NOT all met") + " (p99 goals judged on the \(options.connections)-connection runs)")
if problems.isEmpty {
    print("checks: every page answered 200; wrk counted no non-2xx/3xx responses or socket errors")
} else {
    print("problems (\(problems.count)):")
    for text in problems { print("  - " + text) }
    exitStatus = exitStatus == 0 ? 3 : exitStatus
}
if options.keep { print("kept \(work.path)") } else { try? FileManager.default.removeItem(at: work) }
exit(exitStatus)
