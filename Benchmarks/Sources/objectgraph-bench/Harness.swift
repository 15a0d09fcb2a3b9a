import Foundation

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The five steps of the issue, in the order they run.
enum Step: Int, CaseIterable, Codable, Sendable {
    case insert = 1, fetchAll, fetchByID, setNotes, relationship

    func title(_ sizes: Sizes) -> String {
        func k(_ n: Int) -> String { n >= 1000 && n % 1000 == 0 ? "\(n / 1000)k" : "\(n)" }
        switch self {
        case .insert: return "1 insert \(k(sizes.clients)) clients + \(k(sizes.invoices)) invoices, save"
        case .fetchAll: return "2 fetch all \(k(sizes.invoices)) invoices, read all"
        case .fetchByID: return "3 fetch \(k(sizes.lookups)) invoices by pk, 1 by 1"
        case .setNotes: return "4 change notes on \(k(sizes.updates)) invoices, save"
        case .relationship: return "5 invoices of \(k(sizes.relationshipClients)) clients via relationship"
        }
    }
}

/// Times `body` with the monotonic clock; returns its result and milliseconds.
@MainActor
func measure<T>(_ body: () async throws -> T) async throws -> (T, Double) {
    let clock = ContinuousClock()
    let start = clock.now
    let result = try await body()
    let elapsed = start.duration(to: clock.now)
    let milliseconds = Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
    return (result, milliseconds)
}

/// Runs every registered workload through the steps.
///
/// - Interleaved: for each step, run r runs every column once before run r+1,
///   and the column order rotates with r, so machine noise (other builds on a
///   shared machine) and warm-up spread over all columns instead of hitting one.
/// - Steps 2, 3 and 5 only read, so their runs repeat on the same file.
/// - Step 1 runs on a fresh file every run (the file of the last run is the one
///   the later steps use). Step 4 repeats on the same file with a different
///   notes value each run, so every run really changes 10,000 rows.
/// - `discardCachedObjects()` before every timed call; checks after every one.
/// - Unless --no-warm-up, each step first runs once per column untimed.
@MainActor
final class Harness {
    let options: Options
    let dataset: Dataset
    private var expectations: Expectations
    private let directory: URL
    private let registered = Registry.all
    private var workloads: [String: any Workload] = [:]
    private var samples: [Step: [String: [Double]]] = [:]

    init(options: Options) throws {
        self.options = options
        dataset = Dataset(sizes: options.sizes)
        expectations = Expectations(dataset)
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("objectgraph-bench-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func run() async throws -> Report {
        defer { cleanUp() }
        for step in Step.allCases {
            log("step \(step.rawValue)…")
            // Run 0 is the untimed warm-up (page faults, caches, lazy
            // initialization), when enabled.
            for run in (options.warmUp ? 0 : 1)...options.runs {
                for entry in rotated(registered, by: run) {
                    try await runOnce(step, run: run, entry: entry)
                }
                if step == .setNotes {
                    expectations.setNotes(notes(forRun: run), ofInvoices: dataset.updateIDs)
                }
            }
        }
        for (_, workload) in workloads { try await workload.close() }
        workloads = [:]

        var memory: [String: MemoryChildResult] = [:]
        if options.measureMemory {
            log("step 2 memory, one child process per column…")
            let expected = expectations.fetchAll
            for entry in registered {
                let result = try MemoryChild.spawn(key: entry.key, path: path(entry, run: options.runs))
                try check(result.digest, expected, entry, .fetchAll)
                memory[entry.key] = result
            }
        }
        return Report(options: options, samples: samples, memory: memory)
    }

    private func runOnce(_ step: Step, run: Int, entry: RegisteredWorkload) async throws {
        let milliseconds: Double
        switch step {
        case .insert:
            // A fresh file each run; close the previous run's.
            if let previous = workloads.removeValue(forKey: entry.key) {
                try await previous.close()
                removeFiles(path(entry, run: run - 1))
            }
            let file = path(entry, run: run)
            removeFiles(file)
            let workload = try await entry.type.init(path: file, create: true)
            workloads[entry.key] = workload
            await workload.discardCachedObjects()
            (_, milliseconds) = try await measure { try await workload.insert(dataset) }
            try DiskCheck.afterInsert(path: file, dataset: dataset)
        case .fetchAll:
            let workload = try await prepared(entry)
            let digest: InvoiceDigest
            (digest, milliseconds) = try await measure { try await workload.fetchAllInvoices() }
            try check(digest, expectations.fetchAll, entry, step)
        case .fetchByID:
            let workload = try await prepared(entry)
            let digest: InvoiceDigest
            (digest, milliseconds) = try await measure { try await workload.fetchInvoices(ids: dataset.lookupIDs) }
            try check(digest, expectations.lookups, entry, step)
        case .setNotes:
            let workload = try await prepared(entry)
            let notes = notes(forRun: run)
            (_, milliseconds) = try await measure {
                try await workload.setNotes(notes, onInvoices: dataset.updateIDs)
            }
            try DiskCheck.afterSetNotes(path: path(entry, run: options.runs), notes: notes, count: dataset.updateIDs.count)
        case .relationship:
            let workload = try await prepared(entry)
            let digest: InvoiceDigest
            (digest, milliseconds) = try await measure {
                try await workload.fetchInvoicesOfClients(dataset.relationshipClientIDs)
            }
            try check(digest, expectations.relationship, entry, step)
        }
        guard run > 0 else { return }
        samples[step, default: [:]][entry.key, default: []].append(milliseconds)
        if options.verbose { log("  run \(run) \(entry.key): \(String(format: "%.1f", milliseconds)) ms") }
    }

    /// The workload of `entry`, its caches dropped (untimed).
    private func prepared(_ entry: RegisteredWorkload) async throws -> any Workload {
        guard let workload = workloads[entry.key] else { throw HarnessError("\(entry.key) not opened") }
        await workload.discardCachedObjects()
        return workload
    }

    private func check(_ digest: InvoiceDigest, _ expected: InvoiceDigest, _ entry: RegisteredWorkload, _ step: Step) throws {
        guard digest == expected else {
            throw HarnessError("\(entry.title), step \(step.rawValue): read the wrong data.\n  got      \(digest)\n  expected \(expected)")
        }
    }

    /// A notes value no invoice has before run `run` of step 4.
    private func notes(forRun run: Int) -> String { "Payment reminder sent (run \(run))" }

    private func path(_ entry: RegisteredWorkload, run: Int) -> String {
        directory.appendingPathComponent("\(entry.key)-\(run).sqlite").path
    }

    private func rotated<T>(_ items: [T], by offset: Int) -> [T] {
        guard !items.isEmpty else { return items }
        let k = offset % items.count
        return Array(items[k...] + items[..<k])
    }

    private func removeFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }

    private func cleanUp() {
        if options.keepFiles {
            log("database files kept in \(directory.path)")
        } else {
            try? FileManager.default.removeItem(at: directory)
        }
    }
}

/// Progress goes to stderr, so stdout holds only the table.
func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
