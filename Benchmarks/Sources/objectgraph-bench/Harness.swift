import Foundation

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The samples of one model: per operation and engine, one value per round (milliseconds, or
/// KiB for `.memory`).
struct ModelSamples: Sendable {
    let modelKey: String
    let modelTitle: String
    let sizes: Sizes
    let engines: [(key: String, title: String)]
    var values: [Operation: [String: [Double]]] = [:]
}

/// Times `body` with the monotonic clock; its result and milliseconds.
func measure<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let clock = ContinuousClock()
    let start = clock.now
    let result = try body()
    let elapsed = start.duration(to: clock.now)
    return (result, Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15)
}

/// Runs every engine of a model through the operations, round after round.
///
/// - A round runs each operation for every engine before the next operation, in an order
///   rotated by one each round, so machine noise and warm-up spread over all engines.
/// - Each round starts from fresh files (its insert makes them); the later operations of the
///   round run on them, and the update's changes are expected by the reads after it.
/// - `discardCachedObjects()` before every timed call; every read is checked against the
///   generated data, every write against the file.
/// - Round 0 (unless --no-warm-up) runs everything untimed.
/// - Peak RSS: one child process per engine per round (Memory.swift).
@MainActor
final class Harness<Model: BenchModel> {
    let options: Options
    let dataset: Dataset<Model>
    private let engines = Model.engines
    private let directory: URL
    private var samples: ModelSamples

    init(options: Options) throws {
        self.options = options
        dataset = Dataset(sizes: options.sizes)
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("objectgraph-bench-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        samples = ModelSamples(modelKey: Model.key, modelTitle: Model.title, sizes: options.sizes,
                               engines: engines.map { ($0.key, $0.title) })
    }

    func run() throws -> ModelSamples {
        defer { try? FileManager.default.removeItem(at: directory) }
        for round in (options.warmUp ? 0 : 1)...options.rounds {
            log("\(Model.key): round \(round)\(round == 0 ? " (warm-up, untimed)" : "")…")
            try runRound(round)
        }
        return samples
    }

    private func runRound(_ round: Int) throws {
        let order = rotated(engines, by: round)
        var expectations = Expectations(dataset)
        var workloads: [String: any Workload<Model>] = [:]
        defer { for (_, workload) in workloads { try? workload.close() } }
        for engine in order {
            let path = path(engine, round)
            removeFiles(path)
            let workload = try engine.open(path, true)
            workloads[engine.key] = workload
            workload.discardCachedObjects()
            let (_, ms) = try measure { try workload.insert(dataset) }
            try DiskCheck.afterInsert(path: path, dataset: dataset)
            record(.insert, engine, round, ms)
        }
        try time(.fetchAll, order, workloads, round, expected: expectations.fetchAll) { try $0.fetchAllInvoices() }
        try time(.fetchByKey, order, workloads, round, expected: expectations.lookups) {
            try $0.fetchInvoices(keys: dataset.lookupKeys)
        }
        let update = Model.Update(round: round)
        for engine in order {
            guard let workload = workloads[engine.key] else { continue }
            workload.discardCachedObjects()
            let (_, ms) = try measure { try workload.update(update, invoices: dataset.updateKeys) }
            try DiskCheck.afterUpdate(path: path(engine, round), notes: update.notes, count: dataset.updateKeys.count)
            record(.update, engine, round, ms)
        }
        expectations.apply(update, to: dataset.updateKeys)
        try time(.relationship, order, workloads, round, expected: expectations.relationship) {
            try $0.fetchInvoicesOfClients(dataset.relationshipClientKeys)
        }
        for (_, workload) in workloads { try workload.close() }
        workloads = [:]
        if options.measureMemory && round > 0 {
            for engine in order {
                let result = try MemoryChild.spawn(model: Model.key, engine: engine.key, path: path(engine, round))
                try check(result.digest, expectations.fetchAll, engine, .memory)
                record(.memory, engine, round, Double(result.peakKiB))
                if options.verbose { log("  round \(round) memory \(engine.key): baseline \(result.baselineKiB) KiB") }
            }
        }
        for engine in order { removeFiles(path(engine, round)) }
    }

    private func time(_ operation: Operation, _ order: [Engine<Model>], _ workloads: [String: any Workload<Model>],
                      _ round: Int, expected: Digest, _ body: (any Workload<Model>) throws -> Digest) throws {
        for engine in order {
            guard let workload = workloads[engine.key] else { continue }
            workload.discardCachedObjects()
            let (digest, ms) = try measure { try body(workload) }
            try check(digest, expected, engine, operation)
            record(operation, engine, round, ms)
        }
    }

    private func record(_ operation: Operation, _ engine: Engine<Model>, _ round: Int, _ value: Double) {
        guard round > 0 else { return }
        samples.values[operation, default: [:]][engine.key, default: []].append(value)
        if options.verbose {
            log("  round \(round) \(operation.rawValue) \(engine.key): \(String(format: "%.1f", value))")
        }
    }

    private func check(_ digest: Digest, _ expected: Digest, _ engine: Engine<Model>, _ operation: Operation) throws {
        guard digest == expected else {
            throw HarnessError("\(Model.key), \(engine.title), \(operation.rawValue): read the wrong data.\n"
                               + "  got      \(digest)\n  expected \(expected)")
        }
    }

    private func path(_ engine: Engine<Model>, _ round: Int) -> String {
        directory.appendingPathComponent("\(Model.key)-\(engine.key)-\(round).sqlite").path
    }

    private func rotated<T>(_ items: [T], by offset: Int) -> [T] {
        guard !items.isEmpty else { return items }
        let k = offset % items.count
        return Array(items[k...] + items[..<k])
    }
}

func removeFiles(_ path: String) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        try? FileManager.default.removeItem(atPath: path + suffix)
    }
}

/// Progress goes to stderr, so stdout holds only the tables.
func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
