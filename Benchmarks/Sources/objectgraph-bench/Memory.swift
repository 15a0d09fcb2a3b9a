import Foundation

// Peak RSS after fetching all invoices, per engine, without engines polluting each other.
//
// VmHWM (the RSS high-water mark in /proc/self/status) is process-wide and never goes down,
// and memory one engine freed stays in the malloc arenas where the next reuses it. So each
// engine is measured in a process of its own: the harness re-executes its own binary
// (`objectgraph-bench --memory-child MODEL ENGINE PATH`, a fresh exec rather than a fork, so
// the child inherits none of the parent's heap). The child opens the file the round wrote,
// resets its high-water mark to its current RSS (writing 5 to /proc/self/clear_refs), fetches
// every invoice reading every attribute, and reports VmHWM: the peak while the fetched
// objects were alive, over a baseline (binary, libraries, an open connection) about the same
// in every engine.

enum ProcessMemory {
    /// VmRSS and VmHWM of this process in KiB.
    static func current() -> (rss: Int, peak: Int) {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
        func field(_ name: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
            return Int(line.split(separator: " ").dropFirst().first { Int($0) != nil } ?? "") ?? 0
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    /// Resets VmHWM to the current RSS (Linux ≥ 4.0); false if refused.
    @discardableResult
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }
}

/// What a memory child prints on stdout, as one JSON line.
struct MemoryChildResult: Codable, Sendable {
    var baselineKiB: Int
    var peakKiB: Int
    var peakWasReset: Bool
    var digest: Digest
}

enum MemoryChild {
    static let flag = "--memory-child"

    /// Child side: fetch all once on the file (or `postgresql://` database) at `path`, the result on stdout.
    @MainActor
    static func run(model: String, engine: String, path: String) throws {
        switch model {
        case Seed002.key: try run(Seed002.self, engine: engine, path: path)
        case Dashboard.key: try run(Dashboard.self, engine: engine, path: path)
        default: throw HarnessError("unknown model \(model)")
        }
    }

    @MainActor
    private static func run<Model: BenchModel>(_ model: Model.Type, engine key: String, path: String) throws {
        let engines = path.hasPrefix("postgresql://") ? Model.postgreSQLEngines(insertsRows: false) : Model.engines
        guard let engine = engines.first(where: { $0.key == key }) else { throw HarnessError("unknown engine \(key)") }
        let workload = try engine.open(path, false)
        workload.discardCachedObjects()
        let peakWasReset = ProcessMemory.resetPeak()
        let baseline = ProcessMemory.current().rss
        let digest = try workload.fetchAllInvoices()
        let peak = ProcessMemory.current().peak
        try workload.close()
        let result = MemoryChildResult(baselineKiB: baseline, peakKiB: peak, peakWasReset: peakWasReset, digest: digest)
        FileHandle.standardOutput.write(try JSONEncoder().encode(result))
    }

    /// Parent side: runs the child and decodes what it printed.
    static func spawn(model: String, engine: String, path: String) throws -> MemoryChildResult {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [flag, model, engine, path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // Read before waiting, so a full pipe cannot block the child.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw HarnessError("memory child for \(model)/\(engine) exited with status \(process.terminationStatus)")
        }
        let result = try JSONDecoder().decode(MemoryChildResult.self, from: data)
        if !result.peakWasReset { log("warning: \(engine) child could not reset VmHWM; its peak covers its whole life") }
        return result
    }
}
