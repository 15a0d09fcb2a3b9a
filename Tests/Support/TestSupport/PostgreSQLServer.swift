import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL server for the tests, from Debian's packages (`postgresql`): a data
/// directory of its own under `/tmp/og-postgresql/`, a loopback port, trust authentication,
/// no fsync (a test's data need not survive a power cut). Stopped by its PID.
///
/// `initdb` and `postgres` refuse to run as root: as root they run as Debian's `postgres`
/// user (`runuser -u postgres -- …`) in a directory it owns; as anyone else, as that user.
///
/// ```swift
/// switch PostgreSQLServer.shared {
/// case .success(let server): server.url(database: "postgres")   // postgresql://postgres@127.0.0.1:PORT/postgres
/// case .failure(let reason): print(reason)                       // not installed, or why it did not start
/// }
/// ```
///
/// The shared server starts at its first use and stops when the test process exits. A
/// process killed before that leaves its server running: the next start stops such servers
/// (their owner process is gone) and removes their folders.
public final class PostgreSQLServer: Sendable {
    /// Why there is no server.
    public enum Unavailable: Error, CustomStringConvertible, Sendable {
        /// The PostgreSQL programs are not installed.
        case notInstalled(String)
        /// They are, but the server did not start; the log says why.
        case failedToStart(String)

        public var description: String {
            switch self {
            case .notInstalled(let detail):
                return "PostgreSQL is not installed (\(detail)); `make test` installs Debian's postgresql. Tests of the PostgreSQL store were skipped."
            case .failedToStart(let detail):
                return "PostgreSQL is installed but did not start: \(detail)"
            }
        }
    }

    public let port: Int
    /// The server's folder: `data/` (the cluster), `socket/`, `server.log`.
    public let directory: URL
    private let bin: URL
    private let user: ServerUser
    /// The postmaster's process ID (from `data/postmaster.pid`); 0 while it is shut down.
    private let pid: LockedValue<Int32>

    /// The postmaster's process ID; 0 while the server is shut down.
    public var processIdentifier: Int32 { pid.withLock { $0 } }

    private static let base = URL(fileURLWithPath: "/tmp/og-postgresql")
    /// Servers to stop when the process exits, by their folders (each stopped by its PID).
    private static let running = LockedValue<[URL: Int32]>([:])

    /// The server every test of this process shares, started at the first use. A failure is
    /// kept: the next caller gets the same reason without trying again.
    public static let shared: Result<PostgreSQLServer, Unavailable> = Result { try start() }
        .mapError { $0 as? Unavailable ?? .failedToStart("\($0)") }

    private init(port: Int, directory: URL, bin: URL, user: ServerUser) {
        self.port = port
        self.directory = directory
        self.bin = bin
        self.user = user
        pid = LockedValue(0)
    }

    /// The URL of a database on this server, as user `postgres` (trust authentication).
    public func url(database: String = "postgres") -> String {
        "postgresql://postgres@127.0.0.1:\(port)/\(database)"
    }

    /// Creates a new, empty database on the server (`createdb`) and returns its URL: for tests
    /// whose processes need a database of their own (the dashboard's servers, `invoices import`).
    /// - Throws: ``Unavailable/failedToStart(_:)`` with the end of `createdb`'s log.
    public func makeDatabase() throws -> String {
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try Self.run(user.command(bin.appendingPathComponent("createdb"), [
            "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", name,
        ]), log: directory.appendingPathComponent("createdb.log"), timeout: 60)
        return url(database: name)
    }

    /// Starts a new server. Blocks the calling thread while `initdb` and the server start
    /// (about a second), polling the children: nothing it waits for needs another thread.
    /// - Throws: ``Unavailable``.
    public static func start() throws -> PostgreSQLServer {
        let bin = try binaries()
        stopAbandonedServers()
        let directory = base.appendingPathComponent(UUID().uuidString)
        let user = try ServerUser.current()
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("socket"),
                                                withIntermediateDirectories: true)
        try Data("\(getpid())\n".utf8).write(to: directory.appendingPathComponent("owner"))
        try user.own(directory, directory.appendingPathComponent("socket"))
        let log = directory.appendingPathComponent("server.log")
        let data = directory.appendingPathComponent("data")
        try run(user.command(bin.appendingPathComponent("initdb"), [
            "-D", data.path, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync",
        ]), log: log, timeout: 60)
        let server = PostgreSQLServer(port: try freePort(), directory: directory, bin: bin, user: user)
        _ = registerExitHandler
        try server.launch()
        return server
    }

    /// Starts the postmaster on the server's data and port, and waits until it is ready.
    private func launch() throws {
        let data = directory.appendingPathComponent("data"), log = directory.appendingPathComponent("server.log")
        let child = try user.command(bin.appendingPathComponent("postgres"), [
            "-D", data.path, "-p", "\(port)", "-h", "127.0.0.1", "-k", directory.appendingPathComponent("socket").path,
            "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
            "-c", "max_connections=500", "-c", "shared_buffers=32MB",
        ]).spawn(log: log)
        let started = try Self.waitUntilReady(data: data, server: child, log: log)
        pid.withLock { $0 = started }
        Self.running.withLock { $0[directory] = started }
    }

    /// Shuts the server down (a fast shutdown: SIGINT to the postmaster), keeping its data:
    /// clients see the server go as they would a restart.
    public func shutDown() {
        let stopped = pid.withLock { pid in defer { pid = 0 }; return pid }
        Self.shutDown(pid: stopped)
    }

    /// Starts a shut-down server again, on the same data and port.
    /// - Throws: ``Unavailable/failedToStart(_:)``.
    public func startAgain() throws {
        try launch()
    }

    /// Stops the server and removes its folder.
    public func stop() {
        shutDown()
        Self.remove(directory)
        _ = Self.running.withLock { $0.removeValue(forKey: directory) }
    }

    // MARK: Starting

    /// The folder of the newest installed PostgreSQL's programs (`OBJECTGRAPH_PG_BIN` may name it).
    static func binaries() throws -> URL {
        let fileManager = FileManager.default
        if let explicit = ProcessInfo.processInfo.environment["OBJECTGRAPH_PG_BIN"] {
            return URL(fileURLWithPath: explicit)
        }
        let root = "/usr/lib/postgresql"
        let versions = ((try? fileManager.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        for version in versions.reversed() {
            let bin = URL(fileURLWithPath: "\(root)/\(version)/bin")
            if fileManager.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path),
               fileManager.isExecutableFile(atPath: bin.appendingPathComponent("postgres").path) {
                return bin
            }
        }
        throw Unavailable.notInstalled("no initdb and postgres in \(root)/*/bin")
    }

    /// A port on 127.0.0.1 that nothing listens on now.
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Unavailable.failedToStart("socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw Unavailable.failedToStart("no free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs a command to its end; a failure carries the end of the log.
    private static func run(_ command: ServerUser.Command, log: URL, timeout: TimeInterval) throws {
        let child = try command.spawn(log: log)
        let deadline = Date().addingTimeInterval(timeout)
        while child.termination == nil && Date() < deadline { usleep(10_000) }
        guard let ended = child.termination else {
            child.kill(SIGKILL)
            throw Unavailable.failedToStart("\(command.description) took more than \(Int(timeout)) s. \(tail(of: log))")
        }
        guard ended == .exited(0) else {
            throw Unavailable.failedToStart("\(command.description) ended with \(ended). \(tail(of: log))")
        }
    }

    /// Waits until the postmaster says "ready" in its pid file; returns its PID.
    private static func waitUntilReady(data: URL, server: Subprocess, log: URL) throws -> Int32 {
        let pidFile = data.appendingPathComponent("postmaster.pid")
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let lines = try? String(contentsOf: pidFile, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false),
               lines.count >= 8, lines[7].trimmingCharacters(in: .whitespaces) == "ready", let pid = Int32(lines[0]) {
                return pid
            }
            if let ended = server.termination {
                throw Unavailable.failedToStart("the server ended with \(ended). \(tail(of: log))")
            }
            usleep(10_000)
        }
        server.kill(SIGINT)
        throw Unavailable.failedToStart("the server was not ready after 30 s. \(tail(of: log))")
    }

    private static func tail(of log: URL) -> String {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return "Its log (\(log.path)) ends: " + text.split(separator: "\n").suffix(5).joined(separator: " | ")
    }

    // MARK: Stopping

    private static let registerExitHandler: Void = {
        atexit { PostgreSQLServer.stopAll() }
    }()

    private static func stopAll() {
        for (directory, pid) in running.withLock({ $0 }) {
            shutDown(pid: pid)
            remove(directory)
        }
    }

    /// SIGINT (fast shutdown), then waits up to 10 s for the process to go.
    private static func shutDown(pid: Int32) {
        guard isPostgres(pid) else { return }
        kill(pid, SIGINT)
        for _ in 0..<1000 where kill(pid, 0) == 0 { usleep(10_000) }
    }

    private static func remove(_ directory: URL) {
        do {
            try FileManager.default.removeItem(at: directory)
        } catch {
            // Left behind; the next start removes it once its owner is gone.
            FileHandle.standardError.write(Data("PostgreSQLServer: \(directory.path) was not removed: \(error)\n".utf8))
        }
    }

    /// Stops the servers of test processes that are gone, and removes their folders.
    private static func stopAbandonedServers() {
        let folders = (try? FileManager.default.contentsOfDirectory(at: base, includingPropertiesForKeys: nil)) ?? []
        for folder in folders {
            let owner = (try? String(contentsOf: folder.appendingPathComponent("owner"), encoding: .utf8))
                .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if let owner, kill(owner, 0) == 0 { continue }
            // A folder without its owner yet may be one another start (in this process or
            // another) has just made and is about to sign: only an old one is abandoned.
            if owner == nil, let made = (try? FileManager.default.attributesOfItem(atPath: folder.path))?[.modificationDate] as? Date,
               Date().timeIntervalSince(made) < 600 { continue }
            let pidFile = folder.appendingPathComponent("data/postmaster.pid")
            let pid = (try? String(contentsOf: pidFile, encoding: .utf8))?.split(separator: "\n").first.flatMap { Int32($0) }
            shutDown(pid: pid ?? 0)
            remove(folder)
        }
    }

    /// Whether `pid` is a running postgres process (a stale pid file may name anything).
    private static func isPostgres(_ pid: Int32) -> Bool {
        guard pid > 0, let command = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8) else { return false }
        return command.contains("postgres")
    }
}

/// Who runs `initdb` and `postgres`: the `postgres` user when this process is root (they
/// refuse root), this process's own user otherwise.
private struct ServerUser: Sendable {
    let asPostgres: Bool
    let uid: uid_t
    let gid: gid_t

    static func current() throws -> ServerUser {
        guard getuid() == 0 else { return ServerUser(asPostgres: false, uid: getuid(), gid: getgid()) }
        guard let entry = getpwnam("postgres") else {
            throw PostgreSQLServer.Unavailable.notInstalled("there is no postgres user to run the server as")
        }
        return ServerUser(asPostgres: true, uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
    }

    /// Makes the folders the server's user's.
    func own(_ folders: URL...) throws {
        guard asPostgres else { return }
        for folder in folders where chown(folder.path, uid, gid) != 0 {
            throw PostgreSQLServer.Unavailable.failedToStart("chown \(folder.path): errno \(errno)")
        }
    }

    struct Command: CustomStringConvertible {
        let executable: URL
        let arguments: [String]
        var description: String { ([executable.lastPathComponent] + arguments.prefix(4)).joined(separator: " ") }

        func spawn(log: URL) throws -> Subprocess {
            if !FileManager.default.fileExists(atPath: log.path) {
                _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            }
            let handle = try FileHandle(forWritingTo: log)
            handle.seekToEndOfFile()
            defer { try? handle.close() }
            return try Subprocess(executable, arguments, stdin: .null, stdout: .file(handle), stderr: .file(handle))
        }
    }

    func command(_ executable: URL, _ arguments: [String]) -> Command {
        guard asPostgres else { return Command(executable: executable, arguments: arguments) }
        return Command(executable: URL(fileURLWithPath: "/usr/sbin/runuser"),
                       arguments: ["-u", "postgres", "--", executable.path] + arguments)
    }
}

/// A value behind an `NSLock` (not `Synchronization.Mutex`: the ObjectGraph tests run under
/// ThreadSanitizer, which cannot follow a contended Mutex's hand-over by the kernel).
private final class LockedValue<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched while `lock` is held.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
