import Foundation

// objectgraph-bench: the operations through raw SQLite, GRDB and ObjectGraph, each at
// its best, on seed 002's model and on the dashboard's, in one process, interleaved over
// rounds, with per-round ratios and their median. Release mode:
//   swift build -c release --product objectgraph-bench && .build/release/objectgraph-bench
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
        try Profile.run(model: arguments[1], engine: arguments[2], operation: arguments[3], sizes: options.sizes)
    } else {
        let options = try Options(arguments: arguments)
        #if DEBUG
        log("warning: debug build; timings are meaningless (use swift build -c release)")
        #endif
        var documents: [[String: Any]] = []
        for model in options.models {
            let samples = model == Seed002.key
                ? try Harness<Seed002>(options: options).run()
                : try Harness<Dashboard>(options: options).run()
            print(Report(samples: samples).table)
            print("")
            documents.append(samples.json())
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
