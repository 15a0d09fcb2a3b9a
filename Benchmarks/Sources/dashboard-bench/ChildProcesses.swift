import Foundation

// MARK: - Child processes

/// Collects a child's standard output, so the pipe never fills and blocks it.
final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var text = ""

    init(_ handle: FileHandle) {
        handle.readabilityHandler = { [self] handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil; return }
            lock.withLock { text += String(decoding: data, as: UTF8.self) }
        }
    }

    var current: String { lock.withLock { text } }
}

/// `invoices serve` in a child process, on an ephemeral port.
final class ServeProcess {
    let process = Process()
    let output: OutputCollector
    let port: Int
    let logURL: URL

    init(db: URL, demoData: Bool, logURL: URL) throws {
        self.logURL = logURL
        process.executableURL = URL(fileURLWithPath: invoicesPath)
        process.arguments = ["serve", "--db", db.path, "--host", "127.0.0.1", "--port", "0"]
            + (demoData ? [] : ["--no-demo-data"])
        let pipe = Pipe()
        process.standardOutput = pipe
        // The server logs every request to standard error: to a file, so writing it stays cheap.
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: logURL)
        output = OutputCollector(pipe.fileHandleForReading)
        try process.run()
        // "Serving http://127.0.0.1:PORT/clients" once the data is in and the port listens.
        let deadline = Date().addingTimeInterval(300)
        var found: Int?
        while found == nil, Date() < deadline, process.isRunning {
            if let line = output.current.split(separator: "\n").first(where: { $0.hasPrefix("Serving http://") }),
               let portText = line.split(separator: ":").last?.split(separator: "/").first {
                found = Int(portText)
            } else {
                usleep(50_000)
            }
        }
        guard let found else {
            if process.isRunning { process.terminate() }
            let log = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            throw BenchError("invoices serve did not start; stdout:\n\(output.current)\nstderr:\n\(log.suffix(2000))")
        }
        port = found
    }

    var base: String { "http://127.0.0.1:\(port)" }

    /// SIGTERM, then SIGKILL if it does not stop within 15 s.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(15)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        if process.isRunning {
            problem("invoices serve did not stop within 15 s of SIGTERM; killed")
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `invoices import FILE --db DB --quiet` in a child process; output to files.
final class ImportProcess {
    let process = Process()
    let started = Date()
    let outURL: URL
    let errURL: URL
    private(set) var finished: Date?

    init(csv: URL, db: URL, workDirectory: URL, name: String) throws {
        outURL = workDirectory.appendingPathComponent("\(name).out")
        errURL = workDirectory.appendingPathComponent("\(name).err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: invoicesPath)
        process.arguments = ["import", csv.path, "--db", db.path, "--quiet"]
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        try process.run()
    }

    var isRunning: Bool { process.isRunning }

    /// The child's own peak resident set in KiB (`VmHWM`, read while it ran: its
    /// `getrusage` figure counts the image of this process it was forked from).
    private(set) var peakRSSKiB = 0

    /// Waits up to `timeout` seconds; terminates it after that. Returns the exit status (nil on timeout).
    func wait(timeout: Int) -> Int32? {
        let deadline = started.addingTimeInterval(TimeInterval(timeout))
        while process.isRunning, Date() < deadline {
            peakRSSKiB = max(peakRSSKiB, Self.highWaterMark(of: process.processIdentifier))
            usleep(100_000)
        }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            finished = Date()
            return nil
        }
        process.waitUntilExit()
        finished = finished ?? Date()
        return process.terminationStatus
    }

    var seconds: Double { (finished ?? Date()).timeIntervalSince(started) }

    /// `VmHWM` of a running process, in KiB (0 when it cannot be read).
    private static func highWaterMark(of pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }

    /// The first lines of its report and its errors, for the notes.
    func summary(lines: Int = 6) -> String {
        let out = ((try? String(contentsOf: outURL, encoding: .utf8)) ?? "").split(separator: "\n").prefix(lines)
        let err = ((try? String(contentsOf: errURL, encoding: .utf8)) ?? "").split(separator: "\n").prefix(lines)
        return (out + err).map { "    " + $0 }.joined(separator: "\n")
    }
}
