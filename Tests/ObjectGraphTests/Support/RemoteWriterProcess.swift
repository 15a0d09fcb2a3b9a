import Foundation
import Testing
import TestSupport

/// `objectgraph-fixture remote-writer`: another process with its own stack on the store,
/// driven one command at a time (see Tests/Fixtures/objectgraph-fixture/RemoteWriter.swift).
final class RemoteWriterProcess: Sendable {
    private let child: Subprocess
    private let output = LineBuffer()

    /// Lines the child printed, not read yet. Under an `NSLock`, which ThreadSanitizer
    /// follows (a contended `Synchronization.Mutex` looks like a race to it on Linux).
    private final class LineBuffer: @unchecked Sendable {
        // @unchecked Sendable: `state` is only touched under `lock`.
        private let lock = NSLock()
        private var state: (lines: [String], ended: Bool) = ([], false)
        func withLock<T>(_ body: (inout (lines: [String], ended: Bool)) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(&state)
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts the process on the store at `url` and waits until it is ready (or, for
    /// `die-mid-transaction`, inside its write transaction).
    init(storeAt url: URL, command: String = "remote-writer") async throws {
        child = try Subprocess(try FixtureProcess.executableURL(), [command, url.path],
                               stdin: .pipe, stdout: .pipe, stderr: .inherit)
        guard let reader = child.standardOutput else { throw Failure(description: "no stdout pipe") }
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
        // Start-up gets longer than a reply: under ThreadSanitizer a child of this test binary
        // loads and initialises for minutes when the machine is busy (seen past 120 s).
        let first = await nextLine(within: .seconds(300))
        guard first == "ready" || first == "in-transaction" else {
            child.kill(SIGKILL)
            throw Failure(description: "the fixture did not start: \(first ?? "no output")")
        }
    }

    /// Sends one command and returns the reply line.
    func send(_ command: String) async throws -> String {
        guard let input = child.standardInput else { throw Failure(description: "no stdin pipe") }
        try input.write(contentsOf: Data((command + "\n").utf8))
        guard let reply = await nextLine() else { throw Failure(description: "the fixture ended before answering \(command)") }
        return reply
    }

    /// The next line of output (nil when the process ended, or after `limit`).
    private func nextLine(within limit: Duration = .seconds(120)) async -> String? {
        let deadline = ContinuousClock.now + limit
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
        child.kill(SIGKILL)
        await child.waitForExit(timeout: .seconds(10))
    }

    var processIdentifier: Int32 { child.processIdentifier }

    /// Asks the process to quit and waits for it.
    func quit() async {
        _ = try? child.standardInput?.write(contentsOf: Data("quit\n".utf8))
        try? child.standardInput?.close()
        await child.waitForExit(timeout: .seconds(10))
    }
}
