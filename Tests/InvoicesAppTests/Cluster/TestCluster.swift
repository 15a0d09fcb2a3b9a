import Foundation
import Synchronization
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A real cluster for the balancer tests: `scripts/cluster.sh` (what `make cluster` runs) with
/// a folder of its own under `/tmp/invoices-cluster-tests/` and free loopback ports, never the
/// user's `.build-cluster/`. PostgreSQL without fsync, three `invoices serve --no-demo-data`
/// (the build beside the tests), nginx round-robin in front.
///
/// The suite shares one cluster (``shared()``), started at its first use and stopped by the
/// PIDs in its folder when the test process exits, whatever the tests did. A process killed
/// before that leaves its cluster running: the next start stops such clusters.
final class TestCluster: Sendable {
    /// Why there is no cluster.
    enum Unavailable: Error, CustomStringConvertible {
        case notInstalled(String)
        case failedToStart(String)

        var description: String {
            switch self {
            case .notInstalled(let what):
                return "\(what) is not installed; `make test` installs Debian's postgresql, nginx and curl. The balancer tests were skipped."
            case .failedToStart(let why): return "The cluster did not start: \(why)"
            }
        }
    }

    let directory: URL
    let balancerPort: Int
    let serverPorts: [Int]
    let postgreSQLPort: Int
    /// The database every server shares.
    var storeURL: String { "postgresql://postgres@127.0.0.1:\(postgreSQLPort)/invoices" }

    private static let base = URL(fileURLWithPath: "/tmp/invoices-cluster-tests")
    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/cluster.sh")
    /// Clusters to stop when the process exits.
    private static let running = Mutex<[URL]>([])
    private static let starting = Mutex<Task<TestCluster, Error>?>(nil)

    private init(directory: URL, ports: [Int]) {
        self.directory = directory
        postgreSQLPort = ports[0]
        balancerPort = ports[1]
        serverPorts = Array(ports[2...])
    }

    /// What is missing to run a cluster (nil: all there).
    static var missingPrograms: String? {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        if !versions.contains(where: { FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/postgres") }) {
            return "PostgreSQL"
        }
        for program in ["/usr/sbin/nginx", "/usr/bin/curl"] where !FileManager.default.isExecutableFile(atPath: program) {
            return program
        }
        return nil
    }

    /// The suite's cluster, started at the first call; a failure is the same for every caller.
    static func shared() async throws -> TestCluster {
        let task = starting.withLock { task in
            if let task { return task }
            let started = Task { try await start() }
            task = started
            return started
        }
        return try await task.value
    }

    /// Starts a cluster of three servers in a new folder.
    static func start() async throws -> TestCluster {
        if let missing = missingPrograms { throw Unavailable.notInstalled(missing) }
        guard let invoices = ChildProcess.executable("invoices") else {
            throw Unavailable.failedToStart("the invoices executable was not built beside the tests")
        }
        await stopAbandonedClusters()
        let directory = base.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("\(getpid())\n".utf8).write(to: directory.appendingPathComponent("owner"))
        let cluster = TestCluster(directory: directory, ports: try freePorts(5))
        running.withLock { $0.append(directory) }
        _ = registerExitHandler
        let started = try await cluster.script("start", invoices: invoices)
        guard started.status == .exited(0) else {
            throw Unavailable.failedToStart("scripts/cluster.sh start ended with \(String(describing: started.status)): \(started.output)")
        }
        return cluster
    }

    /// Runs `scripts/cluster.sh` with this cluster's settings.
    func script(_ command: String, invoices: URL? = nil) async throws -> (status: Subprocess.Termination?, output: String) {
        let child = try Subprocess(URL(fileURLWithPath: "/bin/sh"), [Self.script.path, command],
                                   environment: environment(invoices: invoices), stdin: .null, stdout: .pipe, stderr: .pipe)
        guard let stdout = child.standardOutput, let stderr = child.standardError else {
            throw Subprocess.SpawnError(description: "no pipes")
        }
        let out = PipeReader(stdout), err = PipeReader(stderr)
        let ended = await child.waitForExit(timeout: .seconds(300))
        await out.waitForEnd()
        await err.waitForEnd()
        return (ended, out.text + err.text)
    }

    private func environment(invoices: URL?) -> [String: String?] {
        var environment: [String: String?] = [
            "CLUSTER_DIR": directory.path, "CLUSTER_PG_PORT": "\(postgreSQLPort)", "CLUSTER_LB_PORT": "\(balancerPort)",
            "CLUSTER_PORTS": serverPorts.map(String.init).joined(separator: " "), "CLUSTER_PG_FAST": "1",
            "CLUSTER_SERVE_ARGS": "--no-demo-data",
        ]
        environment["CLUSTER_INVOICES"] = (invoices ?? ChildProcess.executable("invoices"))?.path
        return environment
    }

    /// The PID a process of the cluster runs as: `postgresql`, `nginx`, `s1`…
    func processIdentifier(of name: String) -> Int32? {
        let text = try? String(contentsOf: directory.appendingPathComponent("\(name).pid"), encoding: .utf8)
        return text?.split(separator: "\n").first.flatMap { Int32($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// The last `lines` lines of a log in the cluster's folder (`nginx-error`, `s1`, …), for a
    /// failure's message: what the balancer or a server said when a test saw something wrong.
    func logTail(_ name: String, lines: Int = 15) -> String {
        let url = directory.appendingPathComponent("\(name).log")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return "(\(name).log: none)" }
        return "\(name).log:\n" + text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }

    /// Sends `signal` to a process of the cluster and waits (up to `timeout`) until it is gone.
    /// - Returns: whether it is gone.
    @discardableResult
    func signal(_ name: String, _ signal: Int32, timeout: Duration = .seconds(15)) async -> Bool {
        guard let pid = processIdentifier(of: name), pid > 0 else { return true }
        kill(pid, signal)
        let deadline = ContinuousClock.now + timeout
        while Self.isAlive(pid) && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        return !Self.isAlive(pid)
    }

    /// Waits (up to `timeout`) until nothing accepts connections on `port`. A killed server
    /// can look dead (its main thread a zombie) while its other threads are still exiting and
    /// its listening socket still open: a connection made then is reset after nginx has sent
    /// the request, and nginx does not pass a POST it sent to the next server.
    func waitUntilRefused(port: Int, timeout: Duration = .seconds(5)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let socket = try? connectToLoopback(port: port) else { return true }
            close(socket)
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Whether `pid` runs (a zombie nobody reaped yet does not).
    static func isAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return !stat.contains(") Z ")
    }

    /// Runs SQL in the shared database through `psql`, as the postgres user; returns its rows,
    /// one a line, columns separated by `|`.
    func query(_ sql: String) async throws -> [String] {
        guard let bin = Self.postgreSQLBin else { throw Unavailable.notInstalled("PostgreSQL") }
        let child = try Subprocess(URL(fileURLWithPath: bin + "/psql"),
                                   ["-h", "127.0.0.1", "-p", "\(postgreSQLPort)", "-U", "postgres", "-d", "invoices",
                                    "-tA", "-v", "ON_ERROR_STOP=1", "-c", sql],
                                   stdin: .null, stdout: .pipe, stderr: .pipe)
        guard let stdout = child.standardOutput, let stderr = child.standardError else {
            throw Subprocess.SpawnError(description: "no pipes")
        }
        let out = PipeReader(stdout), err = PipeReader(stderr)
        let ended = await child.waitForExit(timeout: .seconds(30))
        await out.waitForEnd()
        await err.waitForEnd()
        guard ended == .exited(0) else { throw Unavailable.failedToStart("psql: \(err.text)") }
        return out.text.split(separator: "\n").map(String.init)
    }

    private static var postgreSQLBin: String? {
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).compactMap(Int.init)
        return versions.max().map { "/usr/lib/postgresql/\($0)/bin" }
    }

    // MARK: Stopping

    private static let registerExitHandler: Void = {
        atexit { TestCluster.stopAll() }
    }()

    /// At exit: every cluster this process started, stopped by its PIDs, its folder removed.
    private static func stopAll() {
        for directory in running.withLock({ $0 }) {
            stopSynchronously(directory)
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// Runs `cluster.sh stop` for `directory` and polls for its end (at exit there is no
    /// task to await on).
    private static func stopSynchronously(_ directory: URL) {
        guard let child = try? Subprocess(URL(fileURLWithPath: "/bin/sh"), [script.path, "stop"],
                                          environment: ["CLUSTER_DIR": directory.path], stdin: .null, stdout: .null,
                                          stderr: .inherit) else { return }
        for _ in 0..<6_000 where child.isRunning { usleep(10_000) }
    }

    /// Stops the clusters of test processes that are gone, and removes their folders.
    private static func stopAbandonedClusters() async {
        let folders = (try? FileManager.default.contentsOfDirectory(at: base, includingPropertiesForKeys: nil)) ?? []
        for folder in folders {
            let owner = (try? String(contentsOf: folder.appendingPathComponent("owner"), encoding: .utf8))
                .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            if let owner, isAlive(owner) { continue }
            stopSynchronously(folder)
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// `count` distinct ports on 127.0.0.1 that nothing listens on now.
    private static func freePorts(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { for fd in sockets { close(fd) } }
        var ports: [Int] = []
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw Unavailable.failedToStart("socket: errno \(errno)") }
            sockets.append(fd)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
                }
            }
            guard bound else { throw Unavailable.failedToStart("no free port: errno \(errno)") }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }
}
