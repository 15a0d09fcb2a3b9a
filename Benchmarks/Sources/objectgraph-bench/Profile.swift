import Foundation

// Instruction counts per operation, with callgrind: `--profile MODEL ENGINE OPERATION` opens a
// fresh file, prepares it untimed (the insert, for every operation but the insert itself), and
// runs the operation once inside `profiledOperation`. Run under
//   valgrind --tool=callgrind --toggle-collect='*profiledOperation*' …
// callgrind counts only while that function is on the stack: the operation alone, not the
// set-up. callgrind-ops.sh runs every operation of every engine so and prints the counts.

@MainActor
enum Profile {
    static func run(model: String, engine: String, operation: String, sizes: Sizes) throws {
        guard let operation = Operation(rawValue: operation), operation != .memory else {
            throw HarnessError("unknown operation \(operation)")
        }
        switch model {
        case Seed002.key: try run(Seed002.self, engine: engine, operation, sizes)
        case Dashboard.key: try run(Dashboard.self, engine: engine, operation, sizes)
        default: throw HarnessError("unknown model \(model)")
        }
    }

    private static func run<Model: BenchModel>(_ model: Model.Type, engine key: String, _ operation: Operation,
                                               _ sizes: Sizes) throws {
        guard let engine = Model.engines.first(where: { $0.key == key }) else { throw HarnessError("unknown engine \(key)") }
        let dataset = Dataset<Model>(sizes: sizes)
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("objectgraph-profile-\(ProcessInfo.processInfo.processIdentifier).sqlite").path
        removeFiles(path)
        defer { removeFiles(path) }
        let workload = try engine.open(path, true)
        defer { try? workload.close() }
        if operation != .insert { try workload.insert(dataset) }
        workload.discardCachedObjects()
        try profiledOperation {
            switch operation {
            case .insert: try workload.insert(dataset)
            case .fetchAll: _ = try workload.fetchAllInvoices()
            case .fetchByKey: _ = try workload.fetchInvoices(keys: dataset.lookupKeys)
            case .update: try workload.update(Model.Update(round: 1), invoices: dataset.updateKeys)
            case .relationship: _ = try workload.fetchInvoicesOfClients(dataset.relationshipClientKeys)
            case .memory: break
            }
        }
    }
}

/// callgrind's toggle: its name is what `--toggle-collect` matches.
@inline(never)
func profiledOperation(_ body: () throws -> Void) rethrows {
    try body()
}
