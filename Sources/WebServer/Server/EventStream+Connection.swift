import CMicroHTTPD

// The side of `EventStream` that libmicrohttpd drives: reading pending bytes into the response,
// suspending the connection while there are none, and the end of the response.
extension EventStream {
    /// Binds the stream to the connection sending it; false if it already was bound.
    func attach(to connection: OpaquePointer) -> Bool {
        state.withLock { state in
            guard state.connection == nil, !state.finished else { return false }
            state.connection = MHDConnection(pointer: connection)
            return true
        }
    }

    /// Called by MHD when it can send: copies pending bytes, or ends the response once closed,
    /// or suspends the connection until `send` or `close` resumes it (returning 0 without
    /// suspending would make MHD call again at once, spinning).
    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        state.withLock { state in
            if !state.pending.isEmpty {
                let count = min(capacity, state.pending.count)
                state.pending.withUnsafeBytes { bytes in
                    if let base = bytes.baseAddress {
                        UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: count)
                    }
                }
                state.pending.removeFirst(count)
                return count
            }
            guard !state.closeRequested, let connection = state.connection else {
                return cmhd_reader_end_of_stream()
            }
            state.suspended = true
            MHD_suspend_connection(connection.pointer)
            return 0
        }
    }

    /// Called when MHD frees the response: the connection is done with the stream.
    func finish() {
        let handlers = state.withLock { state in
            state.finished = true
            state.connection = nil
            state.suspended = false
            state.pending = []
            defer { state.terminationHandlers = [] }
            return state.terminationHandlers
        }
        for handler in handlers { handler() }
    }
}
