import Foundation
import TestSupport

/// Another process holding the database's write lock (`objectgraph-fixture hold-write-lock`),
/// as a second program in the middle of a long write would: writers wait, readers go on.
/// It lets go when ``release()`` closes its stdin, or after a minute at most.
struct WriteLockHolder: Sendable {
    let child: Subprocess

    struct NotHeld: Error, CustomStringConvertible {
        let description: String
    }

    static func hold(_ database: URL) async throws -> WriteLockHolder {
        guard let fixture = ChildProcess.executable("objectgraph-fixture") else {
            throw NotHeld(description: "objectgraph-fixture was not built beside the tests")
        }
        let child = try Subprocess(fixture, ["hold-write-lock", database.path, "60"], stdin: .pipe, stdout: .pipe,
                                   stderr: .inherit)
        guard let stdout = child.standardOutput else { throw NotHeld(description: "no pipe") }
        let output = PipeReader(stdout)
        let deadline = ContinuousClock.now + .seconds(30)
        while !output.text.contains("locked") && ContinuousClock.now < deadline && child.isRunning {
            try await Task.sleep(for: .milliseconds(10))
        }
        guard output.text.contains("locked") else {
            child.kill(SIGKILL)
            throw NotHeld(description: "the lock holder said: \(output.text)")
        }
        return WriteLockHolder(child: child)
    }

    func release() async {
        try? child.standardInput?.close()
        await child.waitForExit(timeout: .seconds(30))
    }
}
