import CMicroHTTPD
import HTTPTypes
import Logging

extension ServerCore {
    /// Hands `response` to libmicrohttpd (which copies the body), with the default security
    /// headers and the request ID, and writes the access-log line.
    /// - Parameter closing: adds `Connection: close` (after refusing a body, or when busy).
    func queue(_ response: Response, for state: RequestState, on connection: OpaquePointer,
               closing: Bool = false) -> MHD_Result {
        state.phase = .responded
        let mhdResponse: OpaquePointer?
        switch response.body {
        case .empty:
            mhdResponse = MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
        case .text(var text):
            mhdResponse = text.withUTF8 { buffer in
                MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress),
                                                .RESPMEM_MUST_COPY)
            }
        case .bytes(let bytes):
            mhdResponse = bytes.withUnsafeBytes { buffer in
                MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress),
                                                .RESPMEM_MUST_COPY)
            }
        case .eventStream(let stream):
            mhdResponse = startStream(stream, on: connection)
        }
        guard let mhdResponse else {
            logger.error("Could not create a response", metadata: ["request_id": "\(state.requestID)"])
            return MHD_Result.NO
        }
        defer { MHD_destroy_response(mhdResponse) }
        for field in response.headers {
            MHD_add_response_header(mhdResponse, field.name.rawName, field.value)
        }
        for header in securityHeaders where !response.headers.contains(header.name) {
            header.cName.withUnsafeBufferPointer { name in
                header.cValue.withUnsafeBufferPointer { value in
                    _ = MHD_add_response_header(mhdResponse, name.baseAddress, value.baseAddress)
                }
            }
        }
        MHD_add_response_header(mhdResponse, "X-Request-ID", state.requestID)
        if closing || draining.load(ordering: .relaxed) {
            MHD_add_response_header(mhdResponse, "Connection", "close")
        }
        let result = MHD_queue_response(connection, UInt32(response.status.code), mhdResponse)
        logAccess(state, status: response.status.code, bytes: response.bodyByteCount)
        return result
    }

    /// One line per request: method, path, status, body bytes, time from headers to response.
    private func logAccess(_ state: RequestState, status: Int, bytes: Int) {
        guard configuration.logsRequests, logger.logLevel <= .info else { return }
        let elapsed = (ContinuousClock.now - state.start).components
        let micros = elapsed.seconds * 1_000_000 + elapsed.attoseconds / 1_000_000_000_000
        let millis = "\(micros / 1000).\(String(micros % 1000 + 1000).dropFirst())"
        logger.info("\(state.method.rawValue) \(state.path) \(status) \(bytes)B \(millis)ms",
                    metadata: ["request_id": "\(state.requestID)"])
    }

    // MARK: - Event streams

    /// A chunked response whose body is read from `stream` as events arrive.
    private func startStream(_ stream: EventStream, on connection: OpaquePointer) -> OpaquePointer? {
        guard stream.attach(to: connection) else {
            logger.error("An EventStream was returned by two responses; each response needs its own stream")
            return nil
        }
        let retained = Unmanaged.passRetained(stream).toOpaque()
        guard let response = MHD_create_response_from_callback(cmhd_size_unknown(), 4096, MHDCallbacks.streamRead,
                                                                retained, MHDCallbacks.streamFreed) else {
            Unmanaged<EventStream>.fromOpaque(retained).release()
            return nil
        }
        // An event stream may stay quiet for long; keep-alive comments detect dead clients instead.
        _ = cmhd_connection_set_timeout(connection, 0)
        streams.withLock { _ = $0.insert(stream) }
        stream.onTermination { [weak self] in
            _ = self?.streams.withLock { $0.remove(stream) }
        }
        return response
    }

    func sendKeepAlive() {
        for stream in streams.withLock({ $0 }) {
            stream.sendComment()
        }
    }

    func closeAllStreams() {
        for stream in streams.withLock({ $0 }) {
            stream.close()
        }
    }

    /// Gives every request still waiting for its asynchronous handler a 503, at shutdown.
    func abandonSuspendedRequests() {
        let waiting = suspendedRequests.withLock { Array($0.values) }
        for (state, connection) in waiting {
            complete(state, with: answer(HTTPError(.serviceUnavailable, "Service unavailable: the server is shutting down."),
                                         path: state.path),
                     connection: connection)
        }
    }
}
