#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CMicroHTTPD
import Dispatch
import HTTPTypes
import Logging
import Synchronization

/// The state libmicrohttpd's callbacks reach through their `cls` pointer, and the request
/// lifecycle: first call, body, dispatch to a handler, response.
///
/// libmicrohttpd calls the access handler several times per request: once when the headers are
/// in (`con_cls` still empty), once per chunk of body, and once more when the body is complete.
/// Every request is dispatched on the last call: a response queued on the first call counts for
/// libmicrohttpd as an early answer, after which it closes the connection (no keep-alive), so the
/// first call only answers what must be refused (413, 400, 503). The route is found on the first
/// call, from the request line and headers alone: a request with a body for no route (404, 405)
/// or larger than its route reads (413, each route has its own limit) is refused before a byte
/// of its body is read or kept.
final class ServerCore: Sendable {
    let routes: RouteNode
    let configuration: HTTPServer.Configuration
    let logger: Logger
    let requestIDs = RequestIDGenerator()
    /// Open TCP connections, counted by the connection-notification callback.
    let openConnections = Atomic<Int>(0)
    /// Requests between their first access-handler call and their request-completed callback.
    let requestsInFlight = Atomic<Int>(0)
    /// Set when shutdown begins: every response then closes its connection.
    let draining = Atomic<Bool>(false)
    /// Event streams being sent, for keep-alive comments and for closing at shutdown.
    let streams = Mutex<Set<EventStream>>([])
    /// Requests whose asynchronous handler is running, so shutdown can answer them if it must.
    let suspendedRequests = Mutex<[ObjectIdentifier: (state: RequestState, connection: MHDConnection)]>([:])
    /// The default security headers, with their names and values as C strings made once.
    let securityHeaders: [(name: HTTPField.Name, cName: [CChar], cValue: [CChar])]

    /// Marks, in MHD's socket context, a connection accepted past the connection limit.
    static var overLimitMarker: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: 1) }

    init(routes: RouteNode, configuration: HTTPServer.Configuration, logger: Logger) {
        self.routes = routes
        self.configuration = configuration
        self.logger = logger
        self.securityHeaders = configuration.securityHeaders.map {
            ($0.name, Array($0.name.rawName.utf8CString), Array($0.value.utf8CString))
        }
    }

    // MARK: - Access handler

    func access(connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>,
                uploadData: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
                context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        if let existing = context.pointee {
            let state = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()
            return proceed(state, connection: connection, uploadData: uploadData, uploadSize: uploadSize)
        }
        guard let method = Self.method(method) else { return MHD_Result.NO }
        let state = RequestState(start: .now, method: method)
        context.pointee = Unmanaged.passRetained(state).toOpaque()
        requestsInFlight.add(1, ordering: .relaxed)
        state.requestID = requestIDs.next()
        return begin(state, connection: connection, url: url)
    }

    private func begin(_ state: RequestState, connection: OpaquePointer, url: UnsafePointer<CChar>) -> MHD_Result {
        let limits = configuration.limits
        if cmhd_connection_socket_context(connection) == Self.overLimitMarker {
            state.path = Self.rawPath(url)
            let busy = HTTPError(.serviceUnavailable,
                                 "Service unavailable: the server is serving its maximum of \(limits.maximumConnections) connections. Retry in a moment.",
                                 headers: [.retryAfter: "1"])
            return queue(answer(busy, path: state.path), for: state, on: connection, closing: true)
        }
        var expectsBody = MHD_lookup_connection_value(connection, .HEADER_KIND, "Transfer-Encoding") != nil
        var length = 0
        if let lengthText = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length") {
            // MHD has already answered 400 to a malformed Content-Length.
            length = Int(String(cString: lengthText)) ?? Int.max
            expectsBody = expectsBody || length > 0
        }
        do {
            try RequestTarget.read(url: url, connection: connection, into: state)
        } catch {
            state.path = Self.rawPath(url)
            return queue(answer(error, path: state.path), for: state, on: connection, closing: expectsBody)
        }
        if let refusal = admitOrigin(state, connection: connection) {
            return queue(answer(refusal, path: state.path), for: state, on: connection, closing: expectsBody)
        }
        state.match = routes.match(method: state.method, segments: state.segments)
        state.bodyLimit = limits.maximumBodySize
        if case .found(let route, _) = state.match, let limit = route.bodyLimit {
            state.bodyLimit = min(limit, limits.maximumBodySize)
        }
        if case .found(let route, let parameters) = state.match, let admit = route.admit {
            var head = Request(method: state.method, path: state.path, query: state.query, headers: state.headers,
                               id: state.requestID)
            head.parameters = parameters
            head.clientAddress = state.clientAddress
            head.isSecure = state.isSecure
            if let refusal = admit(head) { return queue(refusal, for: state, on: connection, closing: expectsBody) }
        }
        guard expectsBody else { return MHD_Result.YES }
        // A body nobody will read is refused now, unread (and the connection closed after).
        if let refusal = Self.refusal(of: state.match) {
            return queue(answer(refusal, path: state.path), for: state, on: connection, closing: true)
        }
        if length > state.bodyLimit { return queue(answer(tooLarge(state), path: state.path), for: state, on: connection, closing: true) }
        // Reserve a little only: the announced length is a claim until the bytes arrive.
        state.body.reserveCapacity(min(length, 64 << 10))
        return MHD_Result.YES
    }

    /// Reads where the request came from; a `Host` the server does not answer for gets 421.
    private func admitOrigin(_ state: RequestState, connection: OpaquePointer) -> HTTPError? {
        let policy = configuration.hostPolicy
        let origin = policy.origin(peer: Self.peerAddress(connection), headers: state.headers)
        state.clientAddress = origin.clientAddress
        state.isSecure = origin.isSecure
        guard let host = origin.host, !policy.allows(host: host) else { return nil }
        // Shown as sent, but short and without control characters.
        let shown = "\"" + String(String.UnicodeScalarView(host.unicodeScalars.prefix(100).map {
            $0.value < 0x20 || $0.value == 0x7F ? "?" : $0
        })) + "\""
        return HTTPError(.misdirectedRequest,
                         "Misdirected request: this server does not answer for the name \(shown)."
                            + (policy.refusalHint.isEmpty ? "" : " " + policy.refusalHint))
    }

    private static func peerAddress(_ connection: OpaquePointer) -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        guard cmhd_connection_client_address(connection, &buffer, socklen_t(buffer.count)) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The answer to a request whose path or method has no route.
    private static func refusal(of match: RouteNode.Match) -> HTTPError? {
        switch match {
        case .found: return nil
        case .notFound: return HTTPError(.notFound, "Not found.")
        case .methodNotAllowed(let allow):
            return HTTPError(.methodNotAllowed, "Method not allowed: use \(allow).", headers: [.allow: allow])
        }
    }

    /// The request method; the common ones without building a String. MHD has already rejected
    /// request lines whose method is not a token.
    private static func method(_ name: UnsafePointer<CChar>) -> HTTPRequest.Method? {
        if strcmp(name, "GET") == 0 { return .get }
        if strcmp(name, "POST") == 0 { return .post }
        if strcmp(name, "HEAD") == 0 { return .head }
        return HTTPRequest.Method(String(cString: name))
    }

    /// The path as received, for the log line of a request refused before it was decoded.
    private static func rawPath(_ url: UnsafePointer<CChar>) -> String {
        String(decoding: UnsafeRawBufferPointer(start: url, count: strlen(url)), as: UTF8.self)
    }

    private func proceed(_ state: RequestState, connection: OpaquePointer, uploadData: UnsafePointer<CChar>?,
                         uploadSize: UnsafeMutablePointer<Int>) -> MHD_Result {
        switch state.phase {
        case .receivingBody:
            let size = uploadSize.pointee
            guard size == 0 else {
                return receive(uploadData, count: size, into: state, uploadSize: uploadSize)
            }
            if state.bodyTooLarge {
                return queue(answer(tooLarge(state), path: state.path), for: state, on: connection, closing: true)
            }
            return dispatch(state, connection: connection)
        case .awaitingHandler:
            // Called again after the handler's task resumed the connection.
            guard let response = state.asyncOutcome?.value.withLock({ $0.response }) else { return MHD_Result.NO }
            return queue(response, for: state, on: connection)
        case .responded:
            // An early answer (413, 400) was queued; whatever body still arrives is dropped.
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
    }

    private func receive(_ data: UnsafePointer<CChar>?, count: Int, into state: RequestState,
                         uploadSize: UnsafeMutablePointer<Int>) -> MHD_Result {
        let limit = state.bodyLimit
        state.receivedBytes += count
        uploadSize.pointee = 0
        if !state.bodyTooLarge {
            if state.body.count + count > limit {
                // Only a chunked body gets here (a large Content-Length was refused at once).
                // MHD cannot answer while a body is arriving: drop it, answer 413 at the end.
                state.bodyTooLarge = true
                state.body = []
            } else if let data {
                data.withMemoryRebound(to: UInt8.self, capacity: count) {
                    state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
                }
            }
        }
        let drainLimit = limit > (Int.max - (1 << 20)) / 2 ? Int.max : 2 * limit + (1 << 20)
        if state.bodyTooLarge && state.receivedBytes > drainLimit {
            // Draining has a bound too: a client that keeps sending is cut off without an answer.
            logger.notice("Closed a connection sending a body far past the limit",
                          metadata: ["request_id": "\(state.requestID)", "bytes": "\(state.receivedBytes)"])
            return MHD_Result.NO
        }
        return MHD_Result.YES
    }

    private func tooLarge(_ state: RequestState) -> HTTPError {
        HTTPError(.contentTooLarge, "Content too large: the request body exceeds the limit of \(state.bodyLimit) bytes.")
    }

    // MARK: - Dispatch

    private func dispatch(_ state: RequestState, connection: OpaquePointer) -> MHD_Result {
        var request = Request(method: state.method, path: state.path, query: state.query, headers: state.headers,
                              body: state.body, id: state.requestID)
        request.clientAddress = state.clientAddress
        request.isSecure = state.isSecure
        state.body = []
        switch state.match {
        case .notFound, .methodNotAllowed:
            return queue(answer(Self.refusal(of: state.match) ?? HTTPError(.notFound), path: state.path), for: state, on: connection)
        case .found(let route, let parameters):
            return dispatch(route.handler, parameters: parameters, request: request, state: state, connection: connection)
        }
    }

    private func dispatch(_ handler: RouteHandler, parameters: RouteParameters, request: Request, state: RequestState,
                          connection: OpaquePointer) -> MHD_Result {
        var request = request
        switch handler {
        case .sync(let handler):
            request.parameters = parameters
            let response: Response
            do {
                response = try handler(request)
            } catch {
                response = errorResponse(for: error, request: request)
            }
            return queue(response, for: state, on: connection)
        case .async(let handler):
            request.parameters = parameters
            return dispatchAsync(handler, request: request, state: state, connection: connection)
        case .immediateOrAsync(let immediate, let handler):
            request.parameters = parameters
            do {
                if let response = try immediate(request) { return queue(response, for: state, on: connection) }
            } catch {
                return queue(errorResponse(for: error, request: request), for: state, on: connection)
            }
            return dispatchAsync(handler, request: request, state: state, connection: connection)
        }
    }

    private func dispatchAsync(_ handler: @escaping @Sendable (Request) async throws -> Response, request: Request,
                               state: RequestState, connection: OpaquePointer) -> MHD_Result {
        if configuration.asyncHandlers == .blockThread {
            return queue(runBlocking(handler, request: request), for: state, on: connection)
        }
        runAsync(handler, request: request, state: state, connection: connection)
        return MHD_Result.YES
    }

    /// Suspends the connection, runs the handler as a task, and resumes the connection with its
    /// response. MHD's thread goes back to its other connections meanwhile.
    private func runAsync(_ handler: @escaping @Sendable (Request) async throws -> Response, request: Request,
                          state: RequestState, connection: OpaquePointer) {
        state.phase = .awaitingHandler
        state.asyncOutcome = AsyncOutcome()
        let handle = MHDConnection(pointer: connection)
        suspendedRequests.withLock { $0[ObjectIdentifier(state)] = (state, handle) }
        // Suspended before the task exists, so the task can never resume it too early.
        MHD_suspend_connection(connection)
        Task {
            let response: Response
            do {
                response = try await handler(request)
            } catch {
                response = self.errorResponse(for: error, request: request)
            }
            self.complete(state, with: response, connection: handle)
        }
    }

    /// Runs the handler as a task and waits for it on this libmicrohttpd thread
    /// (`AsyncHandlerMode.blockThread`). Tasks run on the concurrency pool, never on these
    /// threads, so the wait cannot deadlock on itself.
    private func runBlocking(_ handler: @escaping @Sendable (Request) async throws -> Response,
                             request: Request) -> Response {
        let outcome = AsyncOutcome()
        let done = DispatchSemaphore(value: 0)
        Task {
            let response: Response
            do {
                response = try await handler(request)
            } catch {
                response = self.errorResponse(for: error, request: request)
            }
            outcome.value.withLock { $0.response = response }
            done.signal()
        }
        done.wait()
        return outcome.value.withLock { $0.response } ?? answer(HTTPError(.internalServerError), path: request.path)
    }

    /// Hands `response` to a suspended request and resumes it, once: the first caller (the
    /// handler's task, or shutdown giving up on it) wins.
    func complete(_ state: RequestState, with response: Response, connection: MHDConnection) {
        guard let asyncOutcome = state.asyncOutcome else { return }
        let resume = asyncOutcome.value.withLock { outcome in
            guard !outcome.resumed else { return false }
            outcome = (response, true)
            return true
        }
        guard resume else { return }
        suspendedRequests.withLock { $0[ObjectIdentifier(state)] = nil }
        MHDConnection.resume(connection.pointer)
    }

    /// A handler's error as the client sees it: its own status for an `HTTPError`, the
    /// configuration's classification (`classifiesErrors`), otherwise a 500 page without internals. The error itself goes to the log with the request ID.
    func errorResponse(for error: any Error, request: Request) -> Response {
        if let error = error as? HTTPError { return answer(error, path: request.path) }
        if let classified = configuration.classifiesErrors?(error) {
            logger.warning("Handler failed: \(error)", metadata: [
                "request_id": "\(request.id)", "status": "\(classified.status.code)", "path": "\(request.path)",
            ])
            return answer(classified, path: request.path)
        }
        logger.error("Handler failed: \(error)", metadata: [
            "request_id": "\(request.id)", "method": "\(request.method.rawValue)", "path": "\(request.path)",
        ])
        if configuration.errorPages != nil {
            return answer(HTTPError(.internalServerError, "Something went wrong: the server could not answer this request. "
                                        + "If it happens again, quote the request ID \(request.id)."), path: request.path)
        }
        return .html("""
            <!DOCTYPE html><html><head><meta charset="utf-8"><title>Server error</title></head>
            <body><h1>Something went wrong</h1><p>The server could not answer this request. \
            If it happens again, quote the request ID <code>\(request.id)</code>.</p></body></html>
            """, status: .internalServerError)
    }

    /// The answer to `error`: the configured error page, or plain text, with the error's own
    /// header fields (`Allow`, `Retry-After`) either way.
    func answer(_ error: HTTPError, path: String) -> Response {
        guard let pages = configuration.errorPages else { return error.response }
        var response = pages(error, path)
        for field in error.headers where response.headers[field.name] == nil { response.headers.append(field) }
        return response
    }

    // MARK: - Request completed, connections

    func requestCompleted(context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        guard let pointer = context.pointee else { return }
        context.pointee = nil
        let state = Unmanaged<RequestState>.fromOpaque(pointer).takeRetainedValue()
        requestsInFlight.subtract(1, ordering: .relaxed)
        if state.phase == .receivingBody {
            logger.debug("Request ended before it was answered (client gone or timed out)",
                         metadata: ["request_id": "\(state.requestID)"])
        }
    }

    func connectionOpened(socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        let open = openConnections.add(1, ordering: .relaxed).newValue
        if open > configuration.limits.maximumConnections {
            socketContext.pointee = Self.overLimitMarker
        }
    }

    func connectionClosed() {
        openConnections.subtract(1, ordering: .relaxed)
    }
}
