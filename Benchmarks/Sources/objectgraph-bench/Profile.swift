import Foundation

// Instruction counts per operation, with callgrind: `--profile MODEL ENGINE OPERATION` opens a
// fresh file, prepares it untimed (the insert, for every operation but the insert itself), and
// runs the operation once inside `profiledOperation`. Run under
//   valgrind --tool=callgrind --toggle-collect='*profiledOperation*' …
// callgrind counts only while that function is on the stack: the operation alone, not the
// set-up. callgrind-ops.sh runs every operation of every engine so and prints the counts.
// With --store postgresql the engines are raw libpq and ObjectGraph's PostgreSQL store, on a
// server started for the run (callgrind sees the client's instructions only; the markers on
// stderr let strace count the operation's round trips).

@MainActor
enum Profile {
    static func run(model: String, engine: String, operation: String, options: Options) throws {
        guard let operation = Operation(rawValue: operation), operation != .memory else {
            throw HarnessError("unknown operation \(operation)")
        }
        var server: PostgreSQLServer?
        defer { server?.stop() }
        let storage: any Storage
        if options.store == .postgresql {
            let started = try PostgreSQLServer.start(port: options.postgreSQLPort)
            server = started
            storage = try PostgreSQLStorage(server: started)
        } else {
            storage = try SQLiteStorage()
        }
        defer { storage.removeAll() }
        switch model {
        case Seed002.key: try run(Seed002.self, engine: engine, operation, options, storage)
        case Dashboard.key: try run(Dashboard.self, engine: engine, operation, options, storage)
        default: throw HarnessError("unknown model \(model)")
        }
    }

    private static func run<Model: BenchModel>(_ model: Model.Type, engine key: String, _ operation: Operation,
                                               _ options: Options, _ storage: any Storage) throws {
        let engines = options.store == .postgresql ? Model.postgreSQLEngines(insertsRows: options.libpqInsertsRows)
                                                   : Model.engines
        guard let engine = engines.first(where: { $0.key == key }) else { throw HarnessError("unknown engine \(key)") }
        let dataset = Dataset<Model>(sizes: options.sizes)
        let path = try storage.freshLocation(key, round: 0, model: Model.key)
        let workload = try engine.open(path, true)
        defer { try? workload.close() }
        if operation != .insert { try workload.insert(dataset) }
        workload.discardCachedObjects()
        // Markers on stderr, so a trace of the whole process (strace -f -e trace=sendto,write)
        // can count the operation's round trips alone.
        log("profiled operation: start")
        defer { log("profiled operation: end") }
        try profiledOperation {
            switch operation {
            case .insert: try workload.insert(dataset); try workload.finishWrites()
            case .fetchAll: _ = try workload.fetchAllInvoices()
            case .fetchByKey: _ = try workload.fetchInvoices(keys: dataset.lookupKeys)
            case .update: try workload.update(Model.Update(round: 1), invoices: dataset.updateKeys); try workload.finishWrites()
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
