import Foundation

// MARK: - Distinct reads (issue 18, "The dashboard on a cache miss")

/// The kinds of read the distinct-reads mix draws from, each a path wrk's Lua script makes
/// afresh for every request, with words that occur in the generated data (client names
/// `Bench Client N`, notes "Phase N, design and build" and "Monthly retainer", identifiers
/// `BENCH-A-NNNNNN`), so that searches find things and the page cache is never asked twice.
enum DistinctRead: String, CaseIterable {
    case invoiceSearch = "/invoices.json?q=WORD&page=N"
    case invoiceFilter = "/invoices?status=S&currency=C&page=N"
    case clientSearch = "/clients?q=WORD&page=N"
    case clientRecord = "/clients/PK"

    /// The Lua expression of this kind's path (`c` is the number of clients).
    var lua: String {
        switch self {
        case .invoiceSearch: return #""/invoices.json?q=" .. pick(invoiceWords)() .. "&page=" .. math.random(1, 5)"#
        case .invoiceFilter: return #""/invoices?status=" .. pick(statuses) .. "&currency=" .. pick(currencies) .. "&page=" .. math.random(1, 40)"#
        case .clientSearch: return #""/clients?q=Client%20" .. math.random(1, c) .. "&page=" .. math.random(1, 2)"#
        case .clientRecord: return #""/clients/" .. math.random(1, c)"#
        }
    }
}

/// wrk's script: every request a path of one of `kinds`, drawn at random.
func distinctReadsScript(kinds: [DistinctRead], clients: Int, rows: Int) -> String {
    """
    local c = \(clients)
    local n = \(rows)
    local counter = 0
    local statuses = {"sent", "paid", "draft", "overdue", "cancelled"}
    local currencies = {"EUR", "USD", "JPY", "GBP", "CHF"}
    local invoiceWords = {
      function() return "retainer" end,
      function() return "Phase%20" .. math.random(1, 5) end,
      function() return string.format("BENCH-A-%04d", math.random(0, math.max(0, math.floor(n / 100) - 1))) end,
      function() return "Client%20" .. math.random(1, c) end,
    }
    local function pick(list) return list[math.random(1, #list)] end
    local kinds = {
    \(kinds.map { "  function() return " + $0.lua + " end," }.joined(separator: "\n"))
    }
    function setup(thread) thread:set("seed", math.random(1, 1000000)) end
    function init(args) math.randomseed(os.time() + (seed or 0)) end
    function request()
      return wrk.format("GET", pick(kinds)())
    end
    """
}

/// CPU time (user + system) a process has used so far, in seconds, from /proc.
func cpuSeconds(of pid: Int32) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = text.lastIndex(of: ")") else { return .nan }
    let fields = text[text.index(after: close)...].split(separator: " ")
    // After the command: state is field 3, utime 14 and stime 15 (1-based over the whole line).
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// Waits (up to a minute) until the server has answered what an earlier run left queued:
/// wrk stops waiting at its end, the server does not, and the next run would queue behind.
func waitUntilIdle(_ pid: Int32) {
    let deadline = Date().addingTimeInterval(60)
    var last = cpuSeconds(of: pid)
    repeat {
        usleep(500_000)
        let now = cpuSeconds(of: pid)
        if now - last < 0.05 { return }
        last = now
    } while Date() < deadline
}

/// Writes a script to a file of the temporary folder and returns its path.
func writeScript(_ text: String, named name: String) throws -> String {
    let url = work.appendingPathComponent(name)
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url.path
}

/// The distinct-reads mode: a database of `--rows` invoices over `--clients` clients (made by
/// `invoices import` of a generated CSV), served, then the mix at `--connections`, each kind
/// alone on one connection, with the server's CPU use. Returns the exit status.
@MainActor func runDistinctReads() -> Int32 {
    do {
        let label = "\(options.rows / 1000)k invoices"
        let csv = work.appendingPathComponent("invoices-a.csv")
        let db = work.appendingPathComponent("distinct.sqlite")
        if let existing = options.database {
            try FileManager.default.copyItem(at: URL(fileURLWithPath: existing), to: db)
            print("\ndistinct reads, \(label): copied \(existing)")
        } else {
            let started = Date()
            let written = try writeCSV(to: csv, rows: options.rows, clients: options.clients, prefix: "BENCH-A", seed: 1)
            print("\ndistinct reads, \(label): generated \(written) rows in \(format(Date().timeIntervalSince(started))) s")
            let importing = try ImportProcess(csv: csv, db: db, workDirectory: work, name: "import-a")
            let status = importing.wait(timeout: options.importTimeout)
            print("  invoices import: exit \(status.map(String.init) ?? "timeout") in \(format(importing.seconds)) s")
            if status != 0 { problem("import failed:\n\(importing.summary())"); return 1 }
            try? FileManager.default.removeItem(at: csv)
        }
        let server = try ServeProcess(db: db, demoData: false, logURL: work.appendingPathComponent("serve-distinct.log"))
        defer { server.stop() }
        let pid = server.process.processIdentifier
        for kind in DistinctRead.allCases {
            let sample = kind.rawValue.replacingOccurrences(of: "WORD", with: "retainer").replacingOccurrences(of: "PK", with: "1")
                .replacingOccurrences(of: "=S", with: "=sent").replacingOccurrences(of: "=C", with: "=EUR").replacingOccurrences(of: "=N", with: "=2")
            _ = check(server.base + sample)
        }
        let mix = try writeScript(distinctReadsScript(kinds: DistinctRead.allCases, clients: options.clients, rows: options.rows),
                                  named: "distinct.lua")
        _ = try wrk(server.base + "/", duration: 2, script: mix)
        print("  mix of \(DistinctRead.allCases.map(\.rawValue).joined(separator: ", "))")
        var results: [(WrkResult, Double)] = []
        for round in 1...options.rounds {
            waitUntilIdle(pid)
            let (before, started) = (cpuSeconds(of: pid), Date())
            let result = try wrk(server.base + "/", script: mix)
            let cores = (cpuSeconds(of: pid) - before) / Date().timeIntervalSince(started)
            if let errors = result.errors { problem("distinct reads, round \(round): \(errors)") }
            results.append((result, cores))
            print("  round \(round)/\(options.rounds), \(options.connections) connections: \(format(result.requestsPerSecond, 0))/s, "
                  + "p50 \(format(result.p50Milliseconds, 1)) ms, p99 \(format(result.p99Milliseconds, 1)) ms, "
                  + "server CPU \(format(cores * 100, 0))% (of \(ProcessInfo.processInfo.activeProcessorCount * 100)%)")
        }
        waitUntilIdle(pid)
        print("  each kind alone, 1 connection (a single request's cost):")
        for kind in DistinctRead.allCases {
            let script = try writeScript(distinctReadsScript(kinds: [kind], clients: options.clients, rows: options.rows),
                                         named: "kind.lua")
            let result = try wrk(server.base + "/", duration: min(3, options.duration), single: true, script: script)
            print("    \(kind.rawValue): p50 \(format(result.p50Milliseconds, 2)) ms, p99 \(format(result.p99Milliseconds, 2)) ms, "
                  + "\(format(result.requestsPerSecond, 0))/s")
        }
        let sorted = results.sorted { $0.0.p99Milliseconds < $1.0.p99Milliseconds }
        let median = sorted[sorted.count / 2]
        let goal = options.rows >= 1_000_000 ? 100.0 : 50.0
        print("\n| data | connections | requests/s | p50 (ms) | p99 (ms) | server CPU | goal p99 < \(Int(goal)) ms |")
        print("|---|---:|---:|---:|---:|---:|---|")
        print("| \(label) | \(options.connections) | \(format(median.0.requestsPerSecond, 0)) | \(format(median.0.p50Milliseconds, 1)) | "
              + "\(format(median.0.p99Milliseconds, 1)) | \(format(median.1 * 100, 0))% | "
              + (median.0.p99Milliseconds < goal ? "met" : "NOT met") + " |")
        print("(median round by p99)")
        return problems.isEmpty ? 0 : 3
    } catch {
        problem("\(error)")
        return 1
    }
}
