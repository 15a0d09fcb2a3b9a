import Foundation
import TestSupport

/// `invoices serve` running as a real child process on 127.0.0.1 and a free port: for tests
/// that need two servers on one file, a SIGTERM's message, or a kill -9.
final class ServeProcess: Sendable {
    let child: Subprocess
    let port: Int
    private let output: PipeReader
    private let errors: PipeReader

    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts the server on the SQLite file `database` (no demo data) and returns once it serves.
    /// - Parameter options: more `serve` options, e.g. `["--persist", "deferred=2"]`.
    convenience init(database: URL, options: [String] = [], timeout: Duration = .seconds(30)) async throws {
        try await self.init(storeArguments: ["--db", database.path], options: options, timeout: timeout)
    }

    /// Starts the server on the PostgreSQL database at `url` as `name` (no demo data unless
    /// `options` leave `--no-demo-data` out: see `demoData`).
    convenience init(store url: String, name: String, demoData: Bool = false, options: [String] = [],
                     timeout: Duration = .seconds(30)) async throws {
        try await self.init(storeArguments: ["--store", url, "--name", name], demoData: demoData, options: options,
                            timeout: timeout)
    }

    init(storeArguments: [String], demoData: Bool = false, options: [String], timeout: Duration) async throws {
        guard let invoices = ChildProcess.executable("invoices") else {
            throw StartFailure(description: "the invoices executable was not built beside the tests")
        }
        let child = try Subprocess(invoices, ["serve"] + storeArguments + ["--host", "127.0.0.1", "--port", "0"]
                                       + (demoData ? [] : ["--no-demo-data"]) + options,
                                   stdin: .null, stdout: .pipe, stderr: .pipe)
        guard let stdout = child.standardOutput, let stderr = child.standardError else {
            child.kill(SIGKILL)
            throw StartFailure(description: "no pipes")
        }
        self.child = child
        output = PipeReader(stdout)
        errors = PipeReader(stderr)
        let deadline = ContinuousClock.now + timeout
        var port: Int?
        while port == nil && ContinuousClock.now < deadline && child.isRunning {
            port = output.text.firstMatch(of: /Serving http:\/\/127\.0\.0\.1:(\d+)\//).flatMap { Int($0.1) }
            if port == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        guard let port else {
            child.kill(SIGKILL)
            await child.waitForExit(timeout: .seconds(5))
            throw StartFailure(description: "invoices serve did not start: \(output.text) \(errors.text)")
        }
        self.port = port
    }

    func visitor() -> Visitor { Visitor(port: port) }

    /// What the server printed so far (stdout and stderr).
    var printed: String { output.text + errors.text }

    /// SIGTERM, then waits for the exit.
    /// - Returns: the exit status (128 + signal when killed) and everything it printed.
    func stop(timeout: Duration = .seconds(30)) async -> (status: Int32, printed: String) {
        child.kill(SIGTERM)
        let ended = await child.waitForExit(timeout: timeout)
        await output.waitForEnd()
        await errors.waitForEnd()
        return (ended.exitStatus, printed)
    }

    /// kill -9: no flush, no goodbye.
    func kill9() async {
        child.kill(SIGKILL)
        await child.waitForExit(timeout: .seconds(10))
    }

    deinit {
        if child.isRunning { child.kill(SIGKILL) }
    }
}
