import Foundation

/// One child's measurement.
struct Measurement: Codable, Sendable {
    var milliseconds: Double
    /// User and system CPU time: steadier than wall time on a machine others share.
    var cpuMilliseconds: Double
    var baselineKiB: Int
    var peakKiB: Int
}

enum Child {
    static let flag = "--child"

    static func run(_ column: Column, path: String, count: Int) throws {
        let peakWasReset = resetPeak()
        let baseline = memory().rss
        let (start, cpuStart) = (ContinuousClock.now, cpuMilliseconds())
        try column.migrate(path: path, count: count)
        let elapsed = ContinuousClock.now - start
        let cpu = cpuMilliseconds() - cpuStart
        let peak = peakWasReset ? memory().peak : 0
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        FileHandle.standardOutput.write(try JSONEncoder().encode(
            Measurement(milliseconds: ms, cpuMilliseconds: cpu, baselineKiB: baseline, peakKiB: peak)))
    }

    /// This process's user and system CPU time so far (getrusage).
    static func cpuMilliseconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func ms(_ t: timeval) -> Double { Double(t.tv_sec) * 1000 + Double(t.tv_usec) / 1000 }
        return ms(usage.ru_utime) + ms(usage.ru_stime)
    }

    /// Runs one measurement in a child process and decodes what it printed.
    static func spawn(_ column: Column, path: String, count: Int) throws -> Measurement {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = [flag, column.rawValue, path, String(count)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("\(column.rawValue) exited with \(process.terminationStatus)") }
        return try JSONDecoder().decode(Measurement.self, from: data)
    }

    /// VmRSS and VmHWM in KiB, from /proc/self/status.
    static func memory() -> (rss: Int, peak: Int) {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
        func field(_ name: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
            return Int(line.split(separator: " ").dropFirst().first { Int($0) != nil } ?? "") ?? 0
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    /// Resets VmHWM to the current RSS (writing 5 to /proc/self/clear_refs).
    static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }
}

enum Bench {
    static func run(count: Int, rounds: Int, folder: URL) throws {
        let master = folder.appendingPathComponent("v1.sqlite").path
        try VersionOneFile.write(count: count, to: master)
        let fileMiB = Double(try FileManager.default.attributesOfItem(atPath: master)[.size] as? Int ?? 0) / 1_048_576
        print("migrating \(count) invoices from version 1 to 3 (file: \(format(fileMiB, 1)) MiB), \(rounds) rounds, columns interleaved")
        var results: [Column: [Measurement]] = [:]
        for round in 0..<rounds {
            let columns = Column.allCases
            let order = columns.indices.map { columns[($0 + round) % columns.count] }
            for column in order {
                let path = folder.appendingPathComponent("round\(round)-\(column.rawValue).sqlite").path
                try FileManager.default.copyItem(atPath: master, toPath: path)
                let measurement = try Child.spawn(column, path: path, count: count)
                try ResultCheck.verify(path: path, count: count)
                for suffix in ["", "-wal", "-shm", ".v1-backup"] where FileManager.default.fileExists(atPath: path + suffix) {
                    try FileManager.default.removeItem(atPath: path + suffix)
                }
                results[column, default: []].append(measurement)
            }
            let raw = results[.rawSQL]?.last?.cpuMilliseconds ?? 1
            let line = Column.allCases.map { c -> String in
                let last = results[c]?.last
                return "\(c.rawValue) \(format(last?.cpuMilliseconds ?? 0, 0)) ms CPU (\(format((last?.cpuMilliseconds ?? 0) / raw, 1))×), \(format(last?.milliseconds ?? 0, 0)) ms wall"
            }
            print("  round \(round + 1): " + line.joined(separator: ", "))
        }
        report(results, count: count, fileMiB: fileMiB)
    }

    static func report(_ results: [Column: [Measurement]], count: Int, fileMiB: Double) {
        let rawMedian = median(results[.rawSQL]?.map(\.cpuMilliseconds) ?? [1])
        print("median (CPU ms; × raw SQL; CPU ms per 1,000 invoices; wall ms; peak RSS and its growth during the migration, MiB; growth ÷ file size)")
        for column in Column.allCases {
            let measurements = results[column] ?? []
            let ms = median(measurements.map(\.cpuMilliseconds)), wall = median(measurements.map(\.milliseconds))
            let peak = Double(median(measurements.map { Double($0.peakKiB) })) / 1024
            let growth = Double(median(measurements.map { Double($0.peakKiB - $0.baselineKiB) })) / 1024
            print("  \(column.label.padding(toLength: 32, withPad: " ", startingAt: 0))"
                  + "\(format(ms, 0).leftPad(7)) ms \(format(ms / rawMedian, 1).leftPad(5))×"
                  + "\(format(ms / Double(count) * 1000, 2).leftPad(7)) ms/1k"
                  + "\(format(wall, 0).leftPad(7)) ms wall"
                  + "\(format(peak, 1).leftPad(8)) MiB peak \(format(growth, 1).leftPad(7)) MiB growth"
                  + "\(format(growth / fileMiB, 2).leftPad(6))× file")
        }
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted.count.isMultiple(of: 2) ? (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2 : sorted[sorted.count / 2]
    }

    static func format(_ value: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", value) }
}

extension String {
    func leftPad(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
