import CTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process for tests, started with `posix_spawn` and reaped with `waitpid`.
///
/// Foundation's `Process` on Linux loses termination notifications and has crashed in
/// `run()` when several tests start children at once (swift-corelibs-foundation #4772,
/// #4795, #4810): a test then waits forever with every task suspended. This type keeps
/// nothing global: every wait polls `waitpid` for its own child and is bounded, and every
/// pipe is close-on-exec, so no other child inherits (and holds open) its ends.
public final class Subprocess: @unchecked Sendable {
    // @unchecked Sendable: `pid` and the handles are set once in `init`; `exitStatus` is
    // only touched while `lock` is held.
    public enum Stream: Sendable {
        /// The test process's own stream.
        case inherit
        /// /dev/null.
        case null
        /// A pipe: the other end is `standardInput`/`standardOutput`/`standardError`.
        case pipe
        /// A file, opened for writing by the caller.
        case file(FileHandle)
    }

    /// How the child ended.
    public enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signaled(Int32)
    }

    public struct SpawnError: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    public let processIdentifier: Int32
    /// The write end of the child's stdin, when it is `.pipe`.
    public let standardInput: FileHandle?
    /// The read end of the child's stdout, when it is `.pipe`.
    public let standardOutput: FileHandle?
    /// The read end of the child's stderr, when it is `.pipe`.
    public let standardError: FileHandle?
    private let lock = NSLock()
    private var ended: Termination?

    /// Starts `executable` with `arguments` (and `environment` on top of this process's;
    /// a nil value removes a variable).
    public init(_ executable: URL, _ arguments: [String], environment: [String: String?] = [:],
                currentDirectory: URL? = nil, stdin: Stream = .null, stdout: Stream = .inherit,
                stderr: Stream = .inherit) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32: FileHandle] = [:]
        var childEnds: [Int32] = []
        defer { for fd in childEnds { close(fd) } }
        for (target, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .inherit:
                break
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let handle):
                posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
            case .pipe:
                var fds: [Int32] = [0, 0]
                guard ts_pipe_cloexec(&fds) == 0 else { throw SpawnError(description: "pipe2: errno \(errno)") }
                let (childEnd, parentEnd) = target == 0 ? (fds[0], fds[1]) : (fds[1], fds[0])
                posix_spawn_file_actions_adddup2(&actions, childEnd, target)
                childEnds.append(childEnd)
                parentEnds[target] = FileHandle(fileDescriptor: parentEnd, closeOnDealloc: true)
            }
        }
        if let currentDirectory {
            ts_spawn_add_chdir(&actions, currentDirectory.path)
        }
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
        guard rc == 0 else { throw SpawnError(description: "cannot start \(executable.path): errno \(rc)") }
        processIdentifier = pid
        standardInput = parentEnds[0]
        standardOutput = parentEnds[1]
        standardError = parentEnds[2]
    }

    /// How the child ended, if it has (reaping it the first time).
    public var termination: Termination? {
        lock.withLock {
            if let ended { return ended }
            var status: Int32 = 0
            guard waitpid(processIdentifier, &status, WNOHANG) == processIdentifier else { return nil }
            let signal = status & 0x7f
            ended = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
            return ended
        }
    }

    public var isRunning: Bool { termination == nil }

    /// Sends `signal` (SIGTERM by default) unless the child has been reaped.
    public func kill(_ signal: Int32 = SIGTERM) {
        if termination == nil { Glibc.kill(processIdentifier, signal) }
    }

    /// Waits for the child to end, without blocking a thread; after `timeout` it is killed
    /// (SIGKILL) and the wait goes on for at most 5 s more.
    /// - Returns: how it ended, or nil if it could not be reaped at all.
    @discardableResult
    public func waitForExit(timeout: Duration = .seconds(120)) async -> Termination? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let termination { return termination }
            let now = ContinuousClock.now
            if now > deadline + .seconds(5) { return nil }
            if now > deadline { Glibc.kill(processIdentifier, SIGKILL) }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// Reads a pipe to its end on a thread of its own (so a chatty child never blocks on a
/// full pipe while the test waits for it).
public final class PipeReader: @unchecked Sendable {
    // @unchecked Sendable: `data` and `finished` are only touched while `lock` is held.
    private let lock = NSLock()
    private var data = Data()
    private var finished = false

    public init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                lock.withLock { data.append(chunk) }
            }
            lock.withLock { finished = true }
        }
    }

    public var isFinished: Bool { lock.withLock { finished } }
    public var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }

    /// Waits (at most `timeout`) until the pipe has reached its end.
    public func waitForEnd(timeout: Duration = .seconds(10)) async {
        let deadline = ContinuousClock.now + timeout
        while !isFinished && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
    }
}
