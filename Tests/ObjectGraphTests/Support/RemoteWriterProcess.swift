import Foundation
import Synchronization
import Testing

/// `objectgraph-fixture remote-writer`: another process with its own stack on the store,
/// driven one command at a time (see Tests/Fixtures/objectgraph-fixture/RemoteWriter.swift).
///
/// @unchecked Sendable: the process and pipe are set up in `init`; afterwards the test uses
/// one command at a time, and `output` is guarded by its mutex.
final class RemoteWriterProcess: @unchecked Sendable {
    private let process: Process
    private let input: FileHandle
    private let output = LineBuffer()

    private final class LineBuffer: Sendable {
        let state = Mutex<(lines: [String], ended: Bool)>(([], false))
        func withLock<T>(_ body: (inout (lines: [String], ended: Bool)) -> T) -> T { state.withLock { body(&$0) } }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts the process on the store at `url` and waits until it is ready.
    init(storeAt url: URL, command: String = "remote-writer") async throws {
        process = Process()
        process.executableURL = try FixtureProcess.executableURL()
        process.arguments = [command, url.path]
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.standardError
        input = stdin.fileHandleForWriting
        let reader = stdout.fileHandleForReading
        let output = self.output
        // Blocking reads belong on a thread of their own, not on the test's executor.
        Thread.detachNewThread {
            var pending = ""
            while true {
                let data = reader.availableData
                if data.isEmpty { break }
                pending += String(decoding: data, as: UTF8.self)
                while let newline = pending.firstIndex(of: "\n") {
                    let line = String(pending[..<newline])
                    output.withLock { $0.lines.append(line) }
                    pending = String(pending[pending.index(after: newline)...])
                }
            }
            output.withLock { $0.ended = true }
        }
        try process.run()
        let first = await nextLine()
        guard first == "ready" || first == "in-transaction" else {
            process.terminate()
            throw Failure(description: "the fixture did not start: \(first ?? "no output")")
        }
    }

    /// Sends one command and returns the reply line.
    func send(_ command: String) async throws -> String {
        try input.write(contentsOf: Data((command + "\n").utf8))
        guard let reply = await nextLine() else { throw Failure(description: "the fixture ended before answering \(command)") }
        return reply
    }

    /// The next line of output (nil when the process ended, or after 60 s).
    private func nextLine() async -> String? {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let (line, ended) = output.withLock { o -> (String?, Bool) in
                o.lines.isEmpty ? (nil, o.ended) : (o.lines.removeFirst(), false)
            }
            if let line { return line }
            if ended { return nil }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }

    /// Kills the process with SIGKILL (no cleanup of any kind) and waits for it.
    func kill() async {
        Foundation.kill(process.processIdentifier, SIGKILL)
        await waitForExit()
    }

    var processIdentifier: Int32 { process.processIdentifier }

    /// Asks the process to quit and waits for it.
    func quit() async {
        _ = try? input.write(contentsOf: Data("quit\n".utf8))
        try? input.close()
        await waitForExit()
    }

    /// Waits (at most 10 s, then kills it) for the process to end; never blocks a thread.
    private func waitForExit() async {
        let deadline = ContinuousClock.now + .seconds(10)
        while process.isRunning && ContinuousClock.now < deadline + .seconds(5) {
            if ContinuousClock.now > deadline { Foundation.kill(process.processIdentifier, SIGKILL) }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}
