import Foundation

// objectgraph-bench: the issue's operations through raw SQLite, GRDB and ObjectGraph, each at
// its best, on seed 002's model and on the dashboard's, in one process, interleaved over
// rounds, with per-round ratios and their median. Release mode:
//   swift build -c release --product objectgraph-bench && .build/release/objectgraph-bench
// With --store postgresql: ObjectGraph's PostgreSQL store beside raw libpq, seed 002's model,
// on a server of the run's own (PostgreSQLServer.swift).
// Harness.swift says how rounds run, Memory.swift how peak RSS is measured, Profile.swift how
// callgrind counts one operation.

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    if arguments.first == MemoryChild.flag {
        guard arguments.count == 4 else { throw HarnessError("usage: \(MemoryChild.flag) MODEL ENGINE PATH") }
        try MemoryChild.run(model: arguments[1], engine: arguments[2], path: arguments[3])
    } else if arguments.first == "--profile" {
        guard arguments.count >= 4 else { throw HarnessError(Options.usage) }
        let options = try Options(arguments: Array(arguments.dropFirst(4)))
        try Profile.run(model: arguments[1], engine: arguments[2], operation: arguments[3], options: options)
    } else {
        let options = try Options(arguments: arguments)
        #if DEBUG
        log("warning: debug build; timings are meaningless (use swift build -c release)")
        #endif
        var documents: [[String: Any]] = []
        if options.store == .postgresql {
            let samples = try runOnPostgreSQL(options)
            print(Report(samples: samples).table)
            documents.append(samples.json())
        } else {
            for model in options.models {
                let storage = try SQLiteStorage()
                let samples = model == Seed002.key
                    ? try Harness<Seed002>(options: options, engines: Seed002.engines, storage: storage).run()
                    : try Harness<Dashboard>(options: options, engines: Dashboard.engines, storage: storage).run()
                print(Report(samples: samples).table)
                print("")
                documents.append(samples.json())
            }
        }
        if let path = options.jsonPath {
            let data = try JSONSerialization.data(withJSONObject: documents, options: [.prettyPrinted, .sortedKeys])
            try data.write(to: URL(fileURLWithPath: path))
            log("JSON written to \(path)")
        }
    }
} catch {
    log("objectgraph-bench: \(error)")
    exit(1)
}

/// Seed 002 on a PostgreSQL server started for the run, stopped at the end, failed or not.
@MainActor
func runOnPostgreSQL(_ options: Options) throws -> ModelSamples {
    let server = try PostgreSQLServer.start(port: options.postgreSQLPort)
    defer { server.stop() }
    log("PostgreSQL on 127.0.0.1:\(server.port) (fsync off), \(ProcessInfo.processInfo.activeProcessorCount) cores, "
        + "load average \(loadAverage()); libpq insert: \(options.libpqInsertsRows ? "prepared INSERTs, pipelined" : "COPY")")
    let storage = try PostgreSQLStorage(server: server)
    return try Harness<Seed002>(options: options, engines: Seed002.postgreSQLEngines(insertsRows: options.libpqInsertsRows),
                                storage: storage).run()
}

func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
}
