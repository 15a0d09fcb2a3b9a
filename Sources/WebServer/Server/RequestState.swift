import HTTPTypes
import Synchronization

/// What the server keeps about one request between libmicrohttpd's calls: it lives in MHD's
/// `con_cls`, retained on the first call and released in the request-completed callback.
///
/// @unchecked Sendable: every stored property is touched only by the MHD worker thread that owns
/// the connection (MHD never hands a connection to two threads at once), except inside
/// `asyncOutcome`: it is set by the worker before the handler's task exists, and the task writes
/// only the value inside it, under its mutex, before resuming the connection; the worker reads it
/// after MHD calls back, under the same mutex.
final class RequestState: @unchecked Sendable {
    enum Phase {
        /// Receiving the body, which is appended to `body` (or dropped once past the limit).
        case receivingBody
        /// An asynchronous handler is running; the connection is suspended.
        case awaitingHandler
        /// A response was queued.
        case responded
    }

    var phase = Phase.receivingBody
    let start: ContinuousClock.Instant
    let method: HTTPRequest.Method
    /// The decoded path (or the raw one when it does not decode), for the handler and the log.
    var path = ""
    var segments: [String] = []
    var query = QueryParameters()
    var headers = HTTPFields()
    var body: [UInt8] = []
    /// The route, found on the first call (before any of the body is read).
    var match: RouteNode.Match = .notFound
    /// The largest body the route reads.
    var bodyLimit = 0
    /// Bytes received so far, kept or not.
    var receivedBytes = 0
    var bodyTooLarge = false
    var requestID = ""
    /// Where the request came from (``HostPolicy/origin(peer:headers:)``).
    var clientAddress: String?
    var isSecure = false
    /// Created only for asynchronous handlers, so that the common synchronous path allocates no lock.
    var asyncOutcome: AsyncOutcome?

    init(start: ContinuousClock.Instant, method: HTTPRequest.Method) {
        self.start = start
        self.method = method
    }
}

/// The response of an asynchronous handler (or the one shutdown substitutes), and whether the
/// connection was resumed for it, so that it is resumed exactly once.
final class AsyncOutcome: Sendable {
    let value = Mutex<(response: Response?, resumed: Bool)>((nil, false))
}
