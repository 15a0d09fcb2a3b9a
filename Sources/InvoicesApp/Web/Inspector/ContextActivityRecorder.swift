import Foundation
import ObjectGraph
import Synchronization

/// Turns what the stack's contexts and forms do into timeline events, and tells the
/// inspector that something changed (``onActivity``), so open pages update.
///
/// Sources: ObjectGraph's notifications for every context of the stack's coordinator (saves,
/// with their duration from WillSave to DidSave, and ObjectsDidChange for edits); the
/// `changes` streams of writer and main (merges, batch operations and remote changes, which
/// the persistent history consumer delivers there with origin `.remote`); the
/// session store (forms opened, dropped); and the dashboard's save outcomes (conflicts,
/// validation).
///
/// `Sendable`: the mutable state (save start times, observer tokens, stream tasks) is only
/// touched while its mutex is held; notification blocks run on the posting context's queue
/// and read only `Sendable` values out of the notification.
final class ContextActivityRecorder: Sendable {
    let stack: InvoicesStack
    let identities: ContextIdentities
    let timeline: InspectorTimeline
    let onActivity: @Sendable () -> Void

    /// When each context's current save began (WillSave), by context.
    private let saveStarts = Mutex<[ObjectIdentifier: ContinuousClock.Instant]>([:])
    private let tokens = Mutex<ObserverTokens>(ObserverTokens())
    private let streamTasks = Mutex<[Task<Void, Never>]>([])

    init(stack: InvoicesStack, identities: ContextIdentities, timeline: InspectorTimeline,
         onActivity: @escaping @Sendable () -> Void) {
        self.stack = stack
        self.identities = identities
        self.timeline = timeline
        self.onActivity = onActivity
    }

    /// Starts listening. Call once.
    func start() {
        let center = NotificationCenter.default
        let observed: [(Notification.Name, @Sendable (Notification) -> Void)] = [
            (ManagedObjectContext.willSaveNotification, { [weak self] in self?.willSave($0) }),
            (ManagedObjectContext.didSaveNotification, { [weak self] in self?.didSave($0) }),
            (ManagedObjectContext.objectsDidChangeNotification, { [weak self] in self?.objectsDidChange($0) }),
        ]
        let added = observed.map { name, block in center.addObserver(forName: name, object: nil, queue: nil, using: block) }
        tokens.withLock { $0.tokens.append(contentsOf: added) }
        for context in [stack.writer, stack.main] {
            let stream = context.changes
            let task = Task { [weak self] in
                for await changes in stream {
                    guard let self else { return }
                    self.changed(changes, in: context === self.stack.writer ? "writer" : "main")
                }
            }
            streamTasks.withLock { $0.append(task) }
        }
    }

    deinit {
        let tokens = self.tokens.withLock { $0 }
        for token in tokens.tokens { NotificationCenter.default.removeObserver(token) }
        for task in streamTasks.withLock({ $0 }) { task.cancel() }
    }

    // MARK: ObjectGraph notifications (on the posting context's queue)

    /// The context of a notification, when it belongs to this stack.
    private func ownContext(_ notification: Notification) -> ManagedObjectContext? {
        guard let context = notification.object as? ManagedObjectContext,
              context.persistentStoreCoordinator === stack.coordinator else { return nil }
        return context
    }

    private func willSave(_ notification: Notification) {
        guard let context = ownContext(notification) else { return }
        let now = ContinuousClock.now
        saveStarts.withLock { $0[ObjectIdentifier(context)] = now }
    }

    private func didSave(_ notification: Notification) {
        guard let context = ownContext(notification) else { return }
        let started = saveStarts.withLock { $0.removeValue(forKey: ObjectIdentifier(context)) }
        let milliseconds = started.map { Self.milliseconds(ContinuousClock.now - $0) }
        func ids(_ key: ManagedObjectContext.ChangeKey) -> Set<ObjectID> {
            notification.userInfo?[key.rawValue] as? Set<ObjectID> ?? []
        }
        let inserted = ids(.inserted), updated = ids(.updated), deleted = ids(.deleted)
        let count = inserted.count + updated.count + deleted.count
        let id = identities.id(of: context)
        let destination = context.parent.map { "into \(identities.id(of: $0))" } ?? "to the file"
        var parts: [String] = []
        if !inserted.isEmpty { parts.append("\(inserted.count) inserted") }
        if !updated.isEmpty { parts.append("\(updated.count) updated") }
        if !deleted.isEmpty { parts.append("\(deleted.count) deleted") }
        timeline.record(.save, context: id,
                        summary: "\(id) saved \(count) object\(count == 1 ? "" : "s") \(destination) (\(parts.joined(separator: ", ")))",
                        objects: count, milliseconds: milliseconds,
                        objectIDs: Self.sample(inserted, 8) + Self.sample(updated, 8) + Self.sample(deleted, 8))
        if context.parent == nil {
            let keep = timeline.writtenCapacity
            timeline.wrote(Self.sample(inserted, keep).map { ($0, "inserted") } + Self.sample(updated, keep).map { ($0, "updated") }
                           + Self.sample(deleted, keep).map { ($0, "deleted") }, by: id)
        }
        onActivity()
    }

    private func objectsDidChange(_ notification: Notification) {
        guard ownContext(notification) != nil else { return }
        onActivity()
    }

    // MARK: Change streams of writer and main

    private func changed(_ changes: ChangeSet, in context: String) {
        let count = changes.inserted.count + changes.updated.count + changes.deleted.count
        let objects = "\(count) object\(count == 1 ? "" : "s")"
        let ids = Self.sample(changes.inserted, 8) + Self.sample(changes.updated, 8) + Self.sample(changes.deleted, 8)
        let origin = changes.context ?? "another context"
        switch changes.origin {
        case .save:
            return   // recorded from DidSave, with its duration
        case .merge:
            timeline.record(.merge, context: context, summary: "\(context) merged \(objects) saved by \(origin)",
                            objects: count, origin: origin, objectIDs: ids)
        case .remote:
            timeline.record(.remote, context: context,
                            summary: "\(context) merged \(objects) committed by another process (\(origin))",
                            objects: count, origin: changes.context ?? "another process", objectIDs: ids)
        case .batch:
            timeline.record(.batch, context: context, summary: "\(context) took in a batch operation on \(objects)",
                            objects: count, origin: changes.context, objectIDs: ids)
        }
        onActivity()
    }

    // MARK: Other sources

    /// A form opened or closed (from the session store).
    func formEvent(_ event: FormEvent) {
        switch event {
        case .opened(let form, let session) where form.parentFormID == nil:
            let id = identities.id(of: form.scratchpad)
            timeline.record(.opened, context: id,
                            summary: "\(id) opened for \(Self.describe(form)) (session \(Self.abbreviate(session)))")
        case .closed(let form, _, let reason) where form.parentFormID == nil:
            let why: String
            switch reason {
            case .cancelled: why = "the form was cancelled"
            case .expired: why = "its session expired"
            case .evicted: why = "its session opened too many forms"
            case .rebuilt: why = "another server changed the form since (it goes on in a scratchpad rebuilt from the database)"
            case .saved, .closed: onActivity(); return
            }
            let id = identities.id(of: form.scratchpad)
            timeline.record(.dropped, context: id,
                            summary: "\(id) (\(Self.describe(form))) dropped because \(why): its changes never reached main")
        default:
            break
        }
        onActivity()
    }

    /// A form's save was refused: a conflict with main, or validation.
    func saveRefused(_ form: EditForm, conflicts: [MergeConflict] = [], errors: [String] = []) {
        let id = identities.id(of: form.scratchpad)
        if !conflicts.isEmpty {
            let properties = conflicts.flatMap { $0.properties.map(\.property) }
            let what = conflicts.contains(where: \.deletedElsewhere)
                ? "the object was deleted elsewhere"
                : "changed meanwhile in main: " + properties.joined(separator: ", ")
            timeline.record(.conflict, context: id, summary: "\(id) could not save (\(Self.describe(form))): \(what)",
                            objects: conflicts.count, objectIDs: conflicts.map(\.objectID.description))
        } else {
            timeline.record(.invalid, context: id,
                            summary: "\(id) could not save (\(Self.describe(form))): " + errors.joined(separator: " "),
                            objectIDs: [form.objectID.description])
        }
        onActivity()
    }

    // MARK: Wording

    /// At most `limit` of the IDs as text, sorted: an import's save of thousands of objects
    /// costs the observer (which runs on the saving context's queue) a few strings only.
    static func sample(_ ids: Set<ObjectID>, _ limit: Int) -> [String] {
        let chosen = ids.count <= limit * 4 ? Array(ids) : Array(ids.prefix(limit))
        return chosen.map(\.description).sorted().prefix(limit).map { $0 }
    }

    /// `new client`, `client 12`.
    static func describe(_ form: EditForm) -> String {
        form.isNew ? "new \(form.noun)" : "\(form.noun) \(form.objectID.primaryKey.map(String.init) ?? "")"
    }

    /// The first six characters and an ellipsis: enough to tell sessions apart, not to use one.
    static func abbreviate(_ token: String) -> String { String(token.prefix(6)) + "…" }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return (Double(seconds) * 1000 + Double(attoseconds) / 1e15).rounded(toPlaces: 2)
    }
}

/// Notification observer tokens, to remove them when the recorder goes.
private struct ObserverTokens: @unchecked Sendable {
    // @unchecked Sendable: the tokens are opaque handles only passed back to
    // NotificationCenter.removeObserver, always under the recorder's mutex or in deinit.
    var tokens: [NSObjectProtocol] = []
}

extension Double {
    /// Rounded to `places` decimals, for display.
    func rounded(toPlaces places: Int) -> Double {
        let factor = pow(10, Double(places))
        return (self * factor).rounded() / factor
    }
}
