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
/// - Each round starts from fresh locations (files or databases, see Storage.swift; its insert
///   fills them); the later operations of the round run on them, and the update's changes are
///   expected by the reads after it.
/// - `discardCachedObjects()` before every timed call; every read is checked against the
///   generated data, every write against the store.
/// - Round 0 (unless --no-warm-up) runs everything untimed.
/// - Peak RSS: one child process per engine per round (Memory.swift).
@MainActor
final class Harness<Model: BenchModel> {
    let options: Options
    let dataset: Dataset<Model>
    private let engines: [Engine<Model>]
    private let storage: any Storage
    private var samples: ModelSamples
    /// Each engine's location in the current round.
    private var locations: [String: String] = [:]

    init(options: Options, engines: [Engine<Model>], storage: any Storage) {
        self.options = options
        self.engines = engines
        self.storage = storage
        dataset = Dataset(sizes: options.sizes)
        samples = ModelSamples(modelKey: Model.key, modelTitle: Model.title, sizes: options.sizes,
                               engines: engines.map { ($0.key, $0.title) })
    }

    func run() throws -> ModelSamples {
        defer { storage.removeAll() }
        for round in (options.warmUp ? 0 : 1)...options.rounds {
            log("\(Model.key): round \(round)\(round == 0 ? " (warm-up, untimed)" : "")…")
            try runRound(round)
        }
        return samples
    }

    private func runRound(_ round: Int) throws {
        let order = rotated(engines, by: round)
        var expectations = Expectations(dataset)
        // Workloads close before their locations go (the defers run in reverse).
        defer {
            for (_, location) in locations { storage.remove(location) }
            locations = [:]
        }
        var workloads: [String: any Workload<Model>] = [:]
        defer { for (_, workload) in workloads { try? workload.close() } }
        for engine in order {
            let location = try storage.freshLocation(engine.key, round: round, model: Model.key)
            locations[engine.key] = location
            let workload = try engine.open(location, true)
            workloads[engine.key] = workload
            workload.discardCachedObjects()
            let (_, ms) = try measure { try workload.insert(dataset); try workload.finishWrites() }
            try storage.checkAfterInsert(location, dataset: dataset)
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
            let (_, ms) = try measure {
                try workload.update(update, invoices: dataset.updateKeys)
                try workload.finishWrites()
            }
            try storage.checkAfterUpdate(location(engine), notes: update.notes, count: dataset.updateKeys.count)
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
                let result = try MemoryChild.spawn(model: Model.key, engine: engine.key, path: location(engine))
                try check(result.digest, expectations.fetchAll, engine, .memory)
                record(.memory, engine, round, Double(result.peakKiB))
                if options.verbose { log("  round \(round) memory \(engine.key): baseline \(result.baselineKiB) KiB") }
            }
        }
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

    private func location(_ engine: Engine<Model>) -> String { locations[engine.key] ?? "" }

    private func rotated<T>(_ items: [T], by offset: Int) -> [T] {
        guard !items.isEmpty else { return items }
        let k = offset % items.count
        return Array(items[k...] + items[..<k])
    }
}

/// Progress goes to stderr, so stdout holds only the tables.
func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
