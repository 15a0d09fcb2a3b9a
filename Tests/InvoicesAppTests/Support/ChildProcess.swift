import Foundation
import TestSupport

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
    /// `timeout`, so a stuck child fails its test instead of hanging the suite). Started with
    /// TestSupport's `Subprocess`, not Foundation's `Process` (see there why).
    static func run(_ executable: URL, _ arguments: [String], in folder: URL? = nil,
                    timeout: Duration = .seconds(120)) async throws -> Result {
        let child = try Subprocess(executable, arguments, currentDirectory: folder,
                                   stdin: .null, stdout: .pipe, stderr: .pipe)
        // Both pipes are drained while the child runs: a child that writes more than a
        // pipe's buffer (64 KiB) would otherwise block forever, and so would we.
        guard let stdout = child.standardOutput, let stderr = child.standardError else {
            throw Subprocess.SpawnError(description: "no pipes")
        }
        let out = PipeReader(stdout), err = PipeReader(stderr)
        let ended = await child.waitForExit(timeout: timeout)
        await out.waitForEnd()
        await err.waitForEnd()
        return Result(status: ended.exitStatus, standardOutput: out.text, standardError: err.text)
    }
}

extension Optional<Subprocess.Termination> {
    /// As a shell reports it: the exit code, 128 + the signal, or -1 when it never ended.
    var exitStatus: Int32 {
        switch self {
        case .exited(let code)?: code
        case .signaled(let signal)?: 128 + signal
        case nil: -1
        }
    }
}
