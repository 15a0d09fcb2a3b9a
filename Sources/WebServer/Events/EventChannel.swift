import Synchronization

/// A broadcast channel: publish an event once, every subscriber of its topic receives it.
///
/// ```swift
/// let updates = EventChannel()
/// router.get("/clients/:pk/events") { request in
///     .eventStream(updates.subscribe(to: "client-\(request.parameters["pk"] ?? "")"))
/// }
/// updates.publish(ServerSentEvent(event: "changed", data: "{}"), to: "client-42")
/// ```
/// Streams leave the channel by themselves when they end.
public final class EventChannel: Sendable {
    /// Topic → live streams, guarded by the mutex. Streams are removed by their termination handler.
    private let subscribers = Mutex<[String: Set<EventStream>]>([:])

    public init() {}

    /// Opens a stream subscribed to `topic`, to be returned with `Response.eventStream(_:)`.
    public func subscribe(to topic: String) -> EventStream {
        let stream = EventStream()
        subscribe(stream, to: topic)
        return stream
    }

    /// Subscribes an existing stream to `topic` (a stream may follow several topics).
    public func subscribe(_ stream: EventStream, to topic: String) {
        subscribers.withLock { _ = $0[topic, default: []].insert(stream) }
        stream.onTermination { [weak self] in
            self?.subscribers.withLock { subscribers in
                subscribers[topic]?.remove(stream)
                if subscribers[topic]?.isEmpty == true { subscribers[topic] = nil }
            }
        }
    }

    /// Sends `event` to every stream subscribed to `topic`; returns how many streams took it.
    @discardableResult
    public func publish(_ event: ServerSentEvent, to topic: String) -> Int {
        // Copy the set out so that sending (which takes each stream's lock) runs outside ours.
        let streams = subscribers.withLock { $0[topic] ?? [] }
        return streams.reduce(0) { count, stream in stream.send(event) ? count + 1 : count }
    }

    /// The number of live streams subscribed to `topic`.
    public func subscriberCount(of topic: String) -> Int {
        subscribers.withLock { $0[topic]?.count ?? 0 }
    }
}
