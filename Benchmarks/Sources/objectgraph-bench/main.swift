import Foundation

// objectgraph-bench: the same invoice workload through raw SQLite, GRDB and
// ObjectGraph in one process, with ratios. Build and run in release mode:
//   swift build -c release --product objectgraph-bench && .build/release/objectgraph-bench
// See Harness.swift for how steps are run and timed, Memory.swift for memory.

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    if arguments.first == MemoryChild.flag {
        // Re-executed by the parent to measure step 2's memory alone.
        guard arguments.count == 3 else { throw HarnessError("usage: \(MemoryChild.flag) KEY PATH") }
        try await MemoryChild.run(key: arguments[1], path: arguments[2])
    } else {
        let options = try Options(arguments: arguments)
        #if DEBUG
        log("warning: debug build; timings are meaningless (use swift build -c release)")
        #endif
        let report = try await Harness(options: options).run()
        print(report.table)
        if let path = options.jsonPath {
            try report.json().write(to: URL(fileURLWithPath: path))
            log("JSON written to \(path)")
        }
    }
} catch {
    log("objectgraph-bench: \(error)")
    exit(1)
}
