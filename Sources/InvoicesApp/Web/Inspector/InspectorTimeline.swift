import Foundation
import Synchronization

/// One event of the inspector's timeline.
struct InspectorEvent: Sendable, Codable {
    enum Kind: String, Sendable, Codable {
        /// A context saved: into its parent, or (a root context) to the file.
        case save
        /// Changes saved elsewhere were merged into a context.
        case merge
        /// Another process or coordinator committed to the file.
        case remote
        /// A batch operation ran in SQL.
        case batch
        /// A save was refused because a property changed on both sides.
        case conflict
        /// A save was refused by validation.
        case invalid
        /// A form opened a scratchpad.
        case opened
        /// A scratchpad was dropped without saving: cancel, expiry, or too many open forms.
        case dropped
    }

    /// Increasing, from 1: tells a client which events it has seen.
    let sequence: Int
    let time: Date
    let kind: Kind
    /// The inspector's name of the context (`scratchpad-2`, `main`, `writer`, `import-1`).
    let context: String
    /// What happened, in a sentence.
    let summary: String
    /// How many objects the save or merge carried.
    let objects: Int?
    /// How long the save took.
    let milliseconds: Double?
    /// Where merged changes came from.
    let origin: String?
    /// The first few object IDs concerned (`Client/p3`).
    let objectIDs: [String]
}

/// The recent events of a running dashboard, newest last, at most ``capacity``; and the
/// objects most recently written to the file.
///
/// `Sendable`: the events and the written objects are only touched while their mutex is held.
final class InspectorTimeline: Sendable {
    /// An object whose change reached the file.
    struct Written: Sendable {
        let object: String
        let kind: String
        let time: Date
        let context: String
    }

    private struct State: Sendable {
        var events: [InspectorEvent] = []
        var next = 1
        var written: [Written] = []
        var counts: [InspectorEvent.Kind: Int] = [:]
    }

    let capacity: Int
    let writtenCapacity: Int
    private let state = Mutex(State())

    init(capacity: Int = 200, writtenCapacity: Int = 50) {
        self.capacity = capacity
        self.writtenCapacity = writtenCapacity
    }

    /// Adds an event now and returns it.
    @discardableResult
    func record(_ kind: InspectorEvent.Kind, context: String, summary: String, objects: Int? = nil,
                milliseconds: Double? = nil, origin: String? = nil, objectIDs: [String] = []) -> InspectorEvent {
        state.withLock { state in
            let event = InspectorEvent(sequence: state.next, time: Date(), kind: kind, context: context, summary: summary,
                                       objects: objects, milliseconds: milliseconds, origin: origin,
                                       objectIDs: Array(objectIDs.prefix(8)))
            state.next += 1
            state.events.append(event)
            state.counts[kind, default: 0] += 1
            if state.events.count > capacity { state.events.removeFirst(state.events.count - capacity) }
            return event
        }
    }

    /// Notes objects whose changes reached the file.
    func wrote(_ objects: [(object: String, kind: String)], by context: String) {
        guard !objects.isEmpty else { return }
        let now = Date()
        state.withLock { state in
            state.written.append(contentsOf: objects.suffix(writtenCapacity).map {
                Written(object: $0.object, kind: $0.kind, time: now, context: context)
            })
            if state.written.count > writtenCapacity { state.written.removeFirst(state.written.count - writtenCapacity) }
        }
    }

    /// The most recent events, newest first.
    func recent(_ limit: Int = 50) -> [InspectorEvent] {
        state.withLock { Array($0.events.suffix(limit).reversed()) }
    }

    /// The objects most recently written to the file, newest first.
    func recentlyWritten() -> [Written] {
        state.withLock { Array($0.written.reversed()) }
    }

    /// The last event of this kind, if any is still kept.
    func last(_ kind: InspectorEvent.Kind) -> InspectorEvent? {
        state.withLock { $0.events.last { $0.kind == kind } }
    }

    /// How many events of this kind were recorded since the server started.
    func count(_ kind: InspectorEvent.Kind) -> Int {
        state.withLock { $0.counts[kind, default: 0] }
    }
}
