import Foundation

/// Runs a built executable of this package as a child process.
enum ChildProcess {
    struct Result: Sendable {
        let status: Int32
        let standardOutput: String
        let standardError: String
    }

    /// The package's built executable `name`, found beside the test bundle (the products
    /// folder, e.g. `.build/debug`).
    static func executable(_ name: String) -> URL? {
        var folders: [URL] = []
        if let first = CommandLine.arguments.first {
            folders.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        folders.append(Bundle.main.bundleURL)
        folders.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for folder in folders {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// Runs `executable` with `arguments` and waits for it to exit (killing it after
    /// `timeout`, so a stuck child fails its test instead of hanging the suite).
    static func run(_ executable: URL, _ arguments: [String], in folder: URL? = nil,
                    timeout: Duration = .seconds(120)) async throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        // Both pipes are drained while the child runs: a child that writes more than a
        // pipe's buffer (64 KiB) would otherwise block forever, and so would we.
        let out = PipeReader(output.fileHandleForReading), err = PipeReader(errors.fileHandleForReading)
        try process.run()
        let pid = process.processIdentifier
        let deadline = ContinuousClock.now + timeout
        // Polls instead of `terminationHandler`: the outputs reaching end-of-file is the
        // reliable sign that the child is gone.
        while !(out.isFinished && err.isFinished) && ContinuousClock.now < deadline + .seconds(5) {
            if ContinuousClock.now > deadline { kill(pid, SIGKILL) }
            try await Task.sleep(for: .milliseconds(5))
        }
        let exitDeadline = ContinuousClock.now + .seconds(5)
        while process.isRunning && ContinuousClock.now < exitDeadline { try await Task.sleep(for: .milliseconds(5)) }
        let status = process.isRunning ? -1 : process.terminationStatus
        return Result(status: status, standardOutput: out.text, standardError: err.text)
    }
}

/// Reads a pipe to its end on a thread of its own.
private final class PipeReader: @unchecked Sendable {
    // @unchecked Sendable: `data` and `finished` are only touched while `lock` is held.
    private let lock = NSLock()
    private var data = Data()
    private var finished = false

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                lock.withLock { data.append(chunk) }
            }
            lock.withLock { finished = true }
        }
    }

    var isFinished: Bool { lock.withLock { finished } }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}
