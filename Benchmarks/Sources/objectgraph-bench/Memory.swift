import Foundation

// Peak memory of step 2, measured fairly.
//
// VmHWM (the RSS high-water mark in /proc/self/status) is process-wide and
// never goes down, and memory freed by one column stays in the malloc arenas
// where the next column reuses it. So measuring the columns one after the
// other in the parent would charge each for its predecessors. Instead the
// harness re-executes its own binary once per column
// (`objectgraph-bench --memory-child KEY PATH`): the child opens the database
// the parent filled, resets its high-water mark to its current RSS (writing 5
// to /proc/self/clear_refs), runs step 2 once, and reports VmHWM. The column
// shows that peak and its growth over the child's RSS just before the step
// (binary, libraries and an open connection, about the same in every column).

enum ProcessMemory {
    /// VmRSS and VmHWM of this process in KiB, from /proc/self/status.
    static func current() -> (rss: Int, peak: Int) {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
            return (0, 0)
        }
        func field(_ name: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
            return Int(line.split(separator: " ").dropFirst().first { Int($0) != nil } ?? "") ?? 0
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    /// Resets VmHWM to the current RSS (Linux ≥ 4.0). False if refused, in
    /// which case the peak covers the child's whole (short) life.
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
    var milliseconds: Double
    var digest: InvoiceDigest

    var deltaKiB: Int { peakKiB - baselineKiB }
}

enum MemoryChild {
    static let flag = "--memory-child"

    /// Child side: step 2 once on the existing file at `path`, result on stdout.
    @MainActor
    static func run(key: String, path: String) async throws {
        guard let registered = Registry.all.first(where: { $0.key == key }) else {
            throw HarnessError("unknown workload \(key)")
        }
        let workload = try await registered.type.init(path: path, create: false)
        await workload.discardCachedObjects()
        let peakWasReset = ProcessMemory.resetPeak()
        let baseline = ProcessMemory.current().rss
        let (digest, milliseconds) = try await measure { try await workload.fetchAllInvoices() }
        let peak = ProcessMemory.current().peak
        try await workload.close()
        let result = MemoryChildResult(baselineKiB: baseline, peakKiB: peak, peakWasReset: peakWasReset, milliseconds: milliseconds, digest: digest)
        FileHandle.standardOutput.write(try JSONEncoder().encode(result))
    }

    /// Parent side: runs the child for `key` and decodes what it printed.
    static func spawn(key: String, path: String) throws -> MemoryChildResult {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [flag, key, path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // Read before waiting, so a full pipe cannot block the child.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw HarnessError("memory child for \(key) exited with status \(process.terminationStatus)")
        }
        return try JSONDecoder().decode(MemoryChildResult.self, from: data)
    }
}
