#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CMicroHTTPD
import Logging
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd: its thread pool (epoll) reads requests and runs the
/// router's handlers.
///
/// Threads: handlers without `await` run directly on libmicrohttpd's threads (`threadCount`,
/// the number of cores by default), which is the fast path. Handlers with `await` run as tasks
/// while their connection is suspended (`AsyncHandlerMode.suspendConnection`): measured with wrk
/// on 2 cores this was also faster than blocking the server thread on a semaphore, besides never
/// tying up a thread during a slow `await`. Keep long computations out of synchronous handlers:
/// they hold a server thread.
///
/// ```swift
/// let router = Router()
/// router.get("/hello/:name") { request in .text("Hello, \(request.parameters["name"] ?? "")!") }
/// let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), router: router)
/// try server.start()
/// print("listening on \(server.port)")
/// // ...
/// await server.shutdown()
/// ```
public final class HTTPServer: Sendable {
    /// Why the server could not start.
    public enum Error: Swift.Error, CustomStringConvertible {
        case invalidHost(String)
        case invalidPort(Int)
        case alreadyStarted
        case cannotListen(host: String, port: Int, reason: String)

        public var description: String {
            switch self {
            case .invalidHost(let host):
                "Invalid host \"\(host)\": use an IP address such as 127.0.0.1, 0.0.0.0 or ::1, or localhost."
            case .invalidPort(let port):
                "Invalid port \(port): use 1 to 65535, or 0 to let the system choose."
            case .alreadyStarted:
                "The server is already running (or was stopped): create a new HTTPServer to start again."
            case .cannotListen(let host, let port, let reason):
                "Cannot listen on \(host):\(port): \(reason). Is another process using the port?"
            }
        }
    }

    /// The daemon and what runs beside it, guarded by the mutex.
    private struct RunState: ~Copyable {
        enum Phase { case idle, running, stopped }
        var phase = Phase.idle
        var daemon: OpaquePointer?
        var port = 0
        var keepAlive: Task<Void, Never>?
    }

    public let configuration: Configuration
    let core: ServerCore
    private let run = Mutex(RunState())

    /// Creates a server for `router`'s routes (copied now: routes added later are not served).
    /// - Parameter logger: where the access log and errors go, through an
    ///   ``EscapingLogHandler``: control characters a request carries (`GET /%0Aforged`) are
    ///   written as escapes, so every event stays one line.
    public init(configuration: Configuration = Configuration(), router: Router,
                logger: Logger = Logger(label: "WebServer")) {
        self.configuration = configuration
        self.core = ServerCore(routes: router.root, configuration: configuration,
                               logger: logger.escapingControlCharacters())
    }

    /// The port the server listens on: the one the system chose when 0 was asked.
    public var port: Int {
        run.withLock { $0.phase == .running ? $0.port : configuration.port }
    }

    /// Starts listening and serving; returns once the socket is bound.
    /// - Throws: `HTTPServer.Error` when the host or port is invalid or the port is taken.
    public func start() throws(HTTPServer.Error) {
        guard (0...65535).contains(configuration.port) else { throw .invalidPort(configuration.port) }
        let address = try SocketAddress(host: configuration.host, port: configuration.port)
        let limits = configuration.limits
        // The daemon holds the core for as long as it runs; released after MHD_stop_daemon.
        let cls = Unmanaged.passRetained(core).toOpaque()
        var options = [
            cmhd_option_value(.CONNECTION_MEMORY_LIMIT, limits.connectionMemory),
            cmhd_option_value(.CONNECTION_LIMIT, limits.maximumConnections + limits.connectionOverflow),
            cmhd_option_value(.CONNECTION_TIMEOUT, limits.connectionTimeoutSeconds),
            cmhd_option_notify_completed(MHDCallbacks.requestCompleted, cls),
            cmhd_option_notify_connection(MHDCallbacks.connectionNotified, cls),
            cmhd_option_raw_urls(),
        ]
        if configuration.threadCount > 1 {
            options.append(cmhd_option_value(.THREAD_POOL_SIZE, configuration.threadCount))
        }
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }

        try run.withLock { (state: inout RunState) throws(HTTPServer.Error) in
            guard state.phase == .idle else {
                Unmanaged<ServerCore>.fromOpaque(cls).release()
                throw .alreadyStarted
            }
            let daemon = address.withPointer { sockaddr -> OpaquePointer? in
                options.append(cmhd_option_pointer(.SOCK_ADDR, sockaddr))
                options.append(cmhd_option_end())
                return cmhd_start_daemon(flags, UInt16(configuration.port), MHDCallbacks.access, cls, options)
            }
            guard let daemon else {
                let reason = String(cString: strerror(errno))
                Unmanaged<ServerCore>.fromOpaque(cls).release()
                throw .cannotListen(host: configuration.host, port: configuration.port, reason: reason)
            }
            state.daemon = daemon
            state.port = Int(cmhd_daemon_port(daemon))
            state.phase = .running
            state.keepAlive = Task.detached { [core, interval = configuration.eventStreamKeepAlive] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    core.sendKeepAlive()
                }
            }
        }
        core.logger.info("Listening on http://\(configuration.host):\(port) with \(configuration.threadCount) threads")
    }

    /// Stops gracefully: stops accepting connections at once (new ones are refused), closes the
    /// event streams, lets requests in flight finish for up to `timeout`, answers any request
    /// still waiting for its handler with 503, then stops the daemon. Safe to call more than once.
    public func shutdown(timeout: Duration = .seconds(10)) async {
        let taken = run.withLock { state -> (daemon: MHDDaemon, keepAlive: Task<Void, Never>?)? in
            guard state.phase == .running, let daemon = state.daemon else { return nil }
            state.phase = .stopped
            state.daemon = nil
            return (MHDDaemon(pointer: daemon), state.keepAlive)
        }
        guard let taken else { return }
        core.draining.store(true, ordering: .relaxed)
        let listener = MHD_quiesce_daemon(taken.daemon.pointer)
        if listener >= 0 { close(listener) }
        taken.keepAlive?.cancel()
        core.closeAllStreams()

        if await !waitForRequestsInFlight(until: .now + timeout) {
            core.logger.warning("Shutdown: requests still running after \(timeout); answering them 503")
            core.abandonSuspendedRequests()
            _ = await waitForRequestsInFlight(until: .now + .seconds(1))
        }
        MHD_stop_daemon(taken.daemon.pointer)
        Unmanaged.passUnretained(core).release()
        core.logger.info("Stopped")
    }

    private func waitForRequestsInFlight(until deadline: ContinuousClock.Instant) async -> Bool {
        while core.requestsInFlight.load(ordering: .relaxed) > 0 {
            guard ContinuousClock.now < deadline else { return false }
            do {
                try await Task.sleep(for: .milliseconds(5))
            } catch {
                return false
            }
        }
        return true
    }
}

/// A daemon pointer carried out of the lock to stop it.
///
/// @unchecked Sendable: only `MHD_quiesce_daemon` and `MHD_stop_daemon` are called on it, by the
/// one `shutdown` call that took it out of the server's state.
private struct MHDDaemon: @unchecked Sendable {
    let pointer: OpaquePointer
}
