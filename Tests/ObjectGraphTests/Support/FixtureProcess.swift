import Foundation
import Testing
import TestSupport

/// Runs `objectgraph-fixture` (Tests/Fixtures/objectgraph-fixture) as a real child process.
///
/// The fixture is an executable target of this package, so SwiftPM builds it into the same
/// products folder as the test binary (`.build/<triple>/debug`, `.build-tsan/...`, or any
/// `--scratch-path`). The folder is found from the running test binary itself, so the
/// fixture always comes from the same build (same configuration, same sanitizer) as the
/// tests. `OBJECTGRAPH_FIXTURE` may name the binary explicitly.
enum FixtureProcess {
    struct Result: Sendable {
        let terminationStatus: Int32
        /// True when the process ended by a signal (a trap), false when it exited.
        let endedBySignal: Bool
        let stdout: String
        let stderr: String

        var exitedSuccessfully: Bool { !endedBySignal && terminationStatus == 0 }
    }

    struct NotFound: Error, CustomStringConvertible {
        let searched: [String]
        var description: String {
            "objectgraph-fixture was not found next to the test binary (looked in: "
                + searched.joined(separator: ", ")
                + "). Build it with `swift build --build-tests`, or set OBJECTGRAPH_FIXTURE to its path."
        }
    }

    /// The fixture binary of the build the tests run from.
    static func executableURL() throws -> URL {
        let fileManager = FileManager.default
        if let explicit = ProcessInfo.processInfo.environment["OBJECTGRAPH_FIXTURE"] {
            return URL(fileURLWithPath: explicit)
        }
        var folders: [URL] = []
        // Linux: the test runner is `<products>/<Package>PackageTests.xctest`, an executable.
        // macOS: it is a bundle, `<products>/<Package>PackageTests.xctest/Contents/MacOS/...`,
        // run by xctest or swiftpm-testing-helper; walk up until the products folder.
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let testBundle = Bundle(for: BundleMarker.self).bundleURL
        for start in [executable, testBundle, URL(fileURLWithPath: CommandLine.arguments[0]), Bundle.main.bundleURL] {
            var folder = start.standardizedFileURL
            for _ in 0..<5 {
                folder = folder.deletingLastPathComponent()
                if !folders.contains(folder) { folders.append(folder) }
            }
        }
        for folder in folders {
            let candidate = folder.appendingPathComponent("objectgraph-fixture")
            var isDirectory: ObjCBool = false
            if fileManager.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
               fileManager.isExecutableFile(atPath: candidate.path) {
                return candidate
            }
        }
        throw NotFound(searched: folders.map(\.path))
    }

    /// A class of the test module, so `Bundle(for:)` finds the test bundle on macOS.
    private final class BundleMarker {}

    /// Runs the fixture to completion and returns its status and output.
    ///
    /// - Parameters:
    ///   - environment: variables to set on top of this process's environment; a nil value
    ///     removes the variable.
    ///   - timeout: the child is killed after this long (a hung child fails the test, it
    ///     does not hang the suite).
    static func run(_ arguments: [String], environment: [String: String?] = [:],
                    timeout: TimeInterval = 60) async throws -> Result {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("og-fixture-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Output goes to files, not pipes: a chatty child (a sanitizer report) can never
        // block on a full pipe while we wait for it to exit.
        let outURL = folder.appendingPathComponent("stdout"), errURL = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        defer { try? out.close(); try? err.close() }

        let child = try Subprocess(try executableURL(), arguments, environment: environment,
                                   stdin: .null, stdout: .file(out), stderr: .file(err))
        let ended = await child.waitForExit(timeout: .milliseconds(Int(timeout * 1000)))
        guard let ended else { throw TimedOut(seconds: timeout) }
        let (status, signaled): (Int32, Bool)
        switch ended {
        case .exited(let code): (status, signaled) = (code, false)
        case .signaled(let signal): (status, signaled) = (signal, true)
        }
        return Result(terminationStatus: status, endedBySignal: signaled,
                      stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
                      stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// The time limit, in seconds, given to a fixture that holds a lock until the test
    /// closes its stdin. It is a backstop only (stdin also closes when the test process
    /// dies), so it is far longer than any test: under TSan the whole test process has
    /// been seen to stall for over a minute between the holder's "locked" and the test's
    /// next step, and a 60 s limit then let the lock go before the test looked at it.
    static let holdLimit = "600"

    /// Starts the fixture and returns once it printed `readyLine` on stdout: for children
    /// that keep something (a lock) while the test works. Closing their stdin ends them.
    static func start(_ arguments: [String], readyLine: String, timeout: TimeInterval = 30) async throws -> Running {
        let child = try Subprocess(try executableURL(), arguments, stdin: .pipe, stdout: .pipe, stderr: .inherit)
        let running = Running(child: child)
        guard let reader = child.standardOutput else { throw StartFailure(arguments: arguments, firstLine: nil) }
        // A child that never says it is ready is killed, which ends the read below. The
        // reading thread stands the timeout down as soon as a line comes, not the test once
        // it resumes: a test process stalled past the timeout would kill a ready child.
        let ready = ReadyFlag()
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
            if !ready.isSet { child.kill(SIGKILL) }
        }
        let line: String? = await withCheckedContinuation { continuation in
            // Blocking reads belong on a thread of their own, not on the test's executor.
            Thread.detachNewThread {
                var text = ""
                while !text.contains("\n") {
                    let data = reader.availableData
                    if data.isEmpty { break }
                    text += String(decoding: data, as: UTF8.self)
                }
                ready.set()
                continuation.resume(returning: text.split(separator: "\n").first.map(String.init))
            }
        }
        guard line == readyLine else {
            await running.finish()
            throw StartFailure(arguments: arguments, firstLine: line)
        }
        return running
    }

    struct StartFailure: Error, CustomStringConvertible {
        let arguments: [String]
        let firstLine: String?
        var description: String {
            "objectgraph-fixture \(arguments.joined(separator: " ")) did not get ready; it printed \(firstLine ?? "nothing")"
        }
    }

    /// A child started with ``start(_:readyLine:timeout:)``.
    struct Running: Sendable {
        let child: Subprocess

        /// Closes the child's stdin (its signal to let go) and waits for it to exit.
        func finish() async {
            try? child.standardInput?.close()
            await child.waitForExit(timeout: .seconds(30))
        }
    }

    struct TimedOut: Error, CustomStringConvertible {
        let seconds: TimeInterval
        var description: String { "the fixture did not exit within \(seconds) s (killed)" }
    }
}

/// Set once a started fixture said it is ready (so its start-up timeout stands down).
private final class ReadyFlag: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched while `lock` is held.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
