#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HTTPTypes

extension HTTPServer {
    /// Where the server listens, how many threads serve, and the limits it enforces.
    public struct Configuration: Sendable {
        /// The address to listen on: an IPv4 or IPv6 literal, or `localhost`.
        public var host: String
        /// The TCP port; 0 lets the system pick a free one (read it back from `HTTPServer.port`).
        public var port: Int
        /// libmicrohttpd's thread pool (epoll); handlers without `await` run on these threads.
        public var threadCount: Int
        public var limits: Limits
        /// Header fields added to every response that does not set the same name itself.
        public var securityHeaders: HTTPFields
        /// How often a comment is sent on idle event streams, which keeps proxies from closing
        /// them and lets the server notice clients that went away.
        public var eventStreamKeepAlive: Duration
        /// How handlers with `await` run (see `AsyncHandlerMode`).
        public var asyncHandlers: AsyncHandlerMode
        /// Which `Host` names are answered (others get 421) and which peers are trusted proxies.
        public var hostPolicy: HostPolicy
        /// Makes the page for an error the server or a handler answers with (404, 405, 413, 421,
        /// a thrown `HTTPError`, a 500 without internals); nil for plain text. It gets the error and
        /// the request's path (to answer a `.json` path in JSON); the error's header fields are
        /// added to what it returns. It runs on a server thread: it must not wait.
        public var errorPages: (@Sendable (HTTPError, _ path: String) -> Response)?
        /// Turns an error a handler threw into the `HTTPError` the client gets, when the
        /// application knows what it means (a database that is down: 503); nil leaves it a 500
        /// without internals. It runs on a server thread: it must not wait.
        public var classifiesErrors: (@Sendable (any Swift.Error) -> HTTPError?)?
        /// Whether each request gets an access-log line (at `info`: method, path, status, bytes,
        /// duration, request ID). Turn off when a proxy in front already logs requests.
        public var logsRequests: Bool

        public init(host: String = "127.0.0.1", port: Int = 8080,
                    threadCount: Int = Configuration.processorCount,
                    limits: Limits = Limits(),
                    securityHeaders: HTTPFields = Configuration.defaultSecurityHeaders,
                    eventStreamKeepAlive: Duration = .seconds(15),
                    logsRequests: Bool = true,
                    asyncHandlers: AsyncHandlerMode = .suspendConnection,
                    hostPolicy: HostPolicy = HostPolicy()) {
            self.hostPolicy = hostPolicy
            errorPages = nil
            classifiesErrors = nil
            self.host = host
            self.port = port
            self.threadCount = threadCount
            self.limits = limits
            self.securityHeaders = securityHeaders
            self.eventStreamKeepAlive = eventStreamKeepAlive
            self.logsRequests = logsRequests
            self.asyncHandlers = asyncHandlers
        }

        /// The number of online processors.
        public static var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

        /// Strict defaults for a server-rendered site: resources from the same origin only, no
        /// framing (`frame-ancestors 'none'`), no MIME sniffing, no referrer sent to other sites.
        /// (`X-Frame-Options` is left out: every current browser honours `frame-ancestors`, and
        /// each header line costs measurably per response on the fast path.)
        public static let defaultSecurityHeaders: HTTPFields = [
            .contentSecurityPolicy: "default-src 'self'; img-src 'self' data:; object-src 'none'; "
                + "base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
            .xContentTypeOptions: "nosniff",
            .referrerPolicy: "same-origin",
        ]
    }

    /// How a handler with `await` runs; handlers without `await` always run directly on a
    /// libmicrohttpd thread.
    public enum AsyncHandlerMode: Sendable {
        /// The connection is suspended and the handler runs as a task; the libmicrohttpd thread
        /// serves other connections meanwhile and the connection is resumed with the response.
        /// A slow `await` (a save waiting for the disk) costs no server thread. The default.
        case suspendConnection
        /// The libmicrohttpd thread waits (on a semaphore) while the handler runs as a task. A
        /// little cheaper per request, but each handler waiting holds one of the few server
        /// threads: with 2 threads, 2 slow saves stall every other connection.
        case blockThread
    }

    /// The limits, each answered with its own status and a short explanation.
    public struct Limits: Sendable {
        /// The largest request body accepted. A larger `Content-Length` gets 413 before any of
        /// the body is read; a chunked body that grows past it is read and dropped, then gets 413.
        public var maximumBodySize: Int
        /// Memory for one connection's request line, headers and buffers
        /// (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`). A request line and headers that do not fit
        /// get 431 Request Header Fields Too Large from libmicrohttpd itself (measured with
        /// 0.9.75: with 16 KB, 15 KB of headers pass and 16 KB get 431).
        public var connectionMemory: Int
        /// Connections served at once. The next ones, up to `connectionOverflow` more, are
        /// accepted only to answer 503 with `Retry-After` and close; beyond that, libmicrohttpd
        /// closes new connections at once without a response.
        public var maximumConnections: Int
        /// Extra connections accepted past `maximumConnections` only to be told 503.
        public var connectionOverflow: Int
        /// A connection idle (or trickling too slowly to finish a request) for this long is closed
        /// without a response. Event streams are exempt.
        public var connectionTimeout: Duration

        public init(maximumBodySize: Int = 10 << 20, connectionMemory: Int = 32 << 10,
                    maximumConnections: Int = 1000, connectionOverflow: Int = 64,
                    connectionTimeout: Duration = .seconds(30)) {
            self.maximumBodySize = maximumBodySize
            self.connectionMemory = connectionMemory
            self.maximumConnections = maximumConnections
            self.connectionOverflow = connectionOverflow
            self.connectionTimeout = connectionTimeout
        }

        /// The timeout in whole seconds, at least 1 (libmicrohttpd counts in seconds).
        var connectionTimeoutSeconds: Int {
            max(1, Int(connectionTimeout.components.seconds) + (connectionTimeout.components.attoseconds > 0 ? 1 : 0))
        }
    }
}
