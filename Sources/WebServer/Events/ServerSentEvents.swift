import Synchronization

/// One server-sent event, encoded in the `text/event-stream` format.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event type (`event:`); nil means the browser's default `message`.
    public var event: String?
    /// The data; a multi-line value is sent as several `data:` lines and arrives whole.
    public var data: String
    /// The event ID (`id:`), which the browser sends back as `Last-Event-ID` when it reconnects.
    public var id: String?
    /// How long the browser waits before reconnecting, in milliseconds (`retry:`).
    public var retry: Int?

    public init(event: String? = nil, data: String, id: String? = nil, retry: Int? = nil) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }

    /// The wire form. A browser ends a line at CR LF, LF or a lone CR: line breaks inside
    /// `event` and `id` are dropped, and each line of `data` gets its own `data:` field, so
    /// no value can inject a field or an event. Worked on scalars: as a Character, CR LF is
    /// one grapheme, equal to neither "\r" nor "\n".
    var encoded: String {
        func singleLine(_ text: String) -> String {
            String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != "\n" && $0 != "\r" }))
        }
        var text = ""
        if let event { text += "event: \(singleLine(event))\n" }
        if let id { text += "id: \(singleLine(id))\n" }
        if let retry { text += "retry: \(retry)\n" }
        var line = String.UnicodeScalarView()
        var previousWasCarriageReturn = false
        for scalar in data.unicodeScalars {
            defer { previousWasCarriageReturn = scalar == "\r" }
            if scalar == "\n" && previousWasCarriageReturn { continue }   // the LF of a CR LF
            if scalar == "\r" || scalar == "\n" {
                text += "data: \(String(line))\n"
                line = String.UnicodeScalarView()
            } else {
                line.append(scalar)
            }
        }
        return text + "data: \(String(line))\n\n"
    }
}

/// A live `text/event-stream` to one client: return it with `Response.eventStream(_:)`, then
/// `send(_:)` events to it from any thread or task.
///
/// Events sent before the response goes out are buffered. The stream ends when `close()` is called,
/// when the client goes away (noticed at the next event or keep-alive comment), or when the
/// server shuts down; `onTermination` handlers run then, once.
///
/// ```swift
/// router.get("/events") { _ in
///     let stream = EventStream()
///     stream.send(ServerSentEvent(event: "hello", data: "connected"))
///     return .eventStream(stream)
/// }
/// ```
public final class EventStream: Sendable, Hashable {
    /// Everything mutable, guarded by `state`'s lock. The MHD connection pointer is stored here
    /// while the response is being sent; it is only used under the lock, and cleared (under the
    /// lock) by the response's free callback, after which MHD may free the connection.
    struct State: ~Copyable {
        var pending: [UInt8] = []
        var connection: MHDConnection?
        var suspended = false
        var closeRequested = false
        var finished = false
        var terminationHandlers: [@Sendable () -> Void] = []
    }

    let state = Mutex(State())
    /// Bounds what a client that does not read can make the server hold.
    let maximumPendingBytes: Int

    /// Creates a stream; up to `maximumPendingBytes` of unsent events are kept for a slow client,
    /// beyond which the stream is closed.
    public init(maximumPendingBytes: Int = 1 << 20) {
        self.maximumPendingBytes = maximumPendingBytes
        // A comment first, so that the client sees the stream open at once.
        state.withLock { $0.pending = Array(": stream open\n\n".utf8) }
    }

    /// Sends `event`; returns false when the stream has ended (the caller can drop it).
    @discardableResult
    public func send(_ event: ServerSentEvent) -> Bool {
        write(event.encoded)
    }

    /// Sends a comment line (clients ignore it); the server uses it to keep streams alive.
    @discardableResult
    public func sendComment(_ comment: String = "keep-alive") -> Bool {
        write(": \(comment.filter { $0 != "\n" && $0 != "\r" })\n\n")
    }

    /// Ends the stream: the client receives what was sent so far, then the end of the response.
    public func close() {
        state.withLock { state in
            state.closeRequested = true
            Self.resumeIfSuspended(&state)
        }
    }

    /// True once the stream was closed or its client went away.
    public var isClosed: Bool {
        state.withLock { $0.closeRequested || $0.finished }
    }

    /// Registers `action` to run once when the stream ends (at once if it already has).
    public func onTermination(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            if state.finished { return true }
            state.terminationHandlers.append(action)
            return false
        }
        if runNow { action() }
    }

    private func write(_ text: String) -> Bool {
        state.withLock { state in
            guard !state.closeRequested, !state.finished else { return false }
            state.pending.append(contentsOf: text.utf8)
            if state.pending.count > maximumPendingBytes {
                // The client stopped reading: drop it rather than hold memory without bound.
                state.pending.removeAll()
                state.closeRequested = true
            }
            Self.resumeIfSuspended(&state)
            return true
        }
    }

    private static func resumeIfSuspended(_ state: inout State) {
        if state.suspended, let connection = state.connection {
            state.suspended = false
            MHDConnection.resume(connection.pointer)
        }
    }

    public static func == (lhs: EventStream, rhs: EventStream) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
