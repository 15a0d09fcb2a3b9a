import Foundation
import ObjectGraph
import Synchronization
import WebServer

/// The live context inspector of a running dashboard: records what the stack's contexts do
/// (``InspectorTimeline``), reads the live tree on demand (``StackSnapshotter``), and pushes
/// the re-rendered page to open `/contexts` pages through server-sent events within a
/// fraction of a second of a change.
///
/// Changes are coalesced: the first one schedules a refresh ``refreshDelay`` later; further
/// changes meanwhile ride along, and one that arrives during a refresh schedules the next.
/// Nothing is read while no page listens.
///
/// `Sendable`: `refresh` is only touched while its mutex is held; the rest is immutable.
final class Inspector: Sendable {
    /// The store's latest persistent history transaction (nil for stores without history,
    /// shown as "—").
    static let historyToken: @Sendable (PersistentStoreCoordinator) -> String? = { coordinator in
        guard coordinator.recordsHistory, let token = try? coordinator.currentHistoryToken() else { return nil }
        return "transaction \(token.transactionNumber)"
    }

    /// The event topic of `/contexts/events`.
    static let topic = "contexts"
    /// How long changes are gathered before a refresh.
    static let refreshDelay: Duration = .milliseconds(120)

    let stack: InvoicesStack
    let identities: ContextIdentities
    let timeline = InspectorTimeline()
    let recorder: ContextActivityRecorder
    let snapshotter: StackSnapshotter
    let events = EventChannel()
    let access: InspectorAccess
    /// Renders a snapshot into the page's live part (the dashboard's templates).
    private let renderLive = Mutex<(@Sendable (StackSnapshot) -> String)?>(nil)
    private let refresh = Mutex(RefreshState())
    /// Wakes up when the next open form's session expires, so its drop shows on open pages
    /// then (sessions are otherwise swept only when someone visits).
    private let expiryTimer = Mutex<(at: Duration, task: Task<Void, Never>)?>(nil)
    private let sessions: SessionStore

    private struct RefreshState: Sendable {
        var scheduled = false
        var dirty = false
        var version = 0
    }

    init(stack: InvoicesStack, sessions: SessionStore, persist: PersistMode, access: InspectorAccess) {
        self.stack = stack
        self.access = access
        self.sessions = sessions
        let identities = ContextIdentities(stack: stack)
        self.identities = identities
        let timeline = self.timeline
        let changed = Mutex<(@Sendable () -> Void)?>(nil)
        recorder = ContextActivityRecorder(stack: stack, identities: identities, timeline: timeline,
                                           onActivity: { changed.withLock { $0 }?() })
        snapshotter = StackSnapshotter(stack: stack, sessions: sessions, identities: identities, timeline: timeline,
                                       persist: persist,
                                       remoteDetection: Self.remoteDetection(stack.store))
        changed.withLock { $0 = { [weak self] in self?.noteChange() } }
        recorder.start()
        let recorder = self.recorder
        sessions.observeForms { [weak recorder] event in recorder?.formEvent(event) }
    }

    /// Sets how the live part of `/contexts` is rendered for pushes.
    func setLiveRenderer(_ render: @escaping @Sendable (StackSnapshot) -> String) {
        renderLive.withLock { $0 = render }
    }

    /// Stops the expiry timer (the server is stopping).
    func stop() {
        expiryTimer.withLock { $0?.task.cancel(); $0 = nil }
    }

    /// A new event stream for `/contexts/events`: it gets an `update` event with the live
    /// part's HTML at once and after every change.
    func subscribe() -> EventStream {
        let stream = events.subscribe(to: Self.topic)
        stream.send(ServerSentEvent(event: "hello", data: "listening", retry: 1000))
        // A first refresh: the page catches up with anything since it was rendered, and the
        // wake-up for the next session expiry is planned now that someone listens.
        noteChange()
        return stream
    }

    /// Something changed: schedule a refresh unless one is due.
    func noteChange() {
        let start = refresh.withLock { state -> Bool in
            if state.scheduled { state.dirty = true; return false }
            state.scheduled = true
            return true
        }
        guard start else { return }
        let timekeeper = sessions.timekeeper
        Task { [weak self] in
            do { try await timekeeper.sleep(Self.refreshDelay) } catch {
                self?.refresh.withLock { $0.scheduled = false }
                return
            }
            await self?.refreshNow()
        }
    }

    /// Sweeps the sessions just after `delay` (the next expiry), replacing a later wake-up.
    private func scheduleExpiryCheck(after delay: Duration?) {
        guard let delay else { return }
        let timekeeper = sessions.timekeeper, now = timekeeper.now()
        let at = now + max(.zero, delay) + .milliseconds(200)
        expiryTimer.withLock { timer in
            if let timer, timer.at <= at, timer.at > now { return }   // an earlier wake-up is due
            timer?.task.cancel()
            let sessions = self.sessions
            timer = (at, Task { [weak self] in
                do { try await timekeeper.sleep(at - now) } catch { return }
                // Reports expired forms (which refreshes the pages); a session used meanwhile
                // expires later: wake up again then.
                let open = sessions.openForms()
                guard let self, self.events.subscriberCount(of: Self.topic) > 0 else { return }
                self.scheduleExpiryCheck(after: open.map(\.expiresIn).min())
            })
        }
    }

    /// Reads the tree and pushes it to every open page (skipped when none listens).
    private func refreshNow() async {
        refresh.withLock { $0.dirty = false }
        if events.subscriberCount(of: Self.topic) > 0, let render = renderLive.withLock({ $0 }) {
            let snapshot = await snapshotter.snapshot()
            let version = refresh.withLock { state -> Int in state.version += 1; return state.version }
            events.publish(ServerSentEvent(event: "update", data: render(snapshot), id: String(version)), to: Self.topic)
            scheduleExpiryCheck(after: sessions.openForms().map(\.expiresIn).min())
        }
        let again = refresh.withLock { state -> Bool in
            if state.dirty { state.dirty = false; return true }
            state.scheduled = false
            return false
        }
        if again {
            do { try await sessions.timekeeper.sleep(Self.refreshDelay) } catch {
                refresh.withLock { $0.scheduled = false }
                return
            }
            await refreshNow()
        }
    }

    /// How this server hears of other servers' and processes' commits.
    static func remoteDetection(_ store: StoreLocation) -> String {
        switch store {
        case .inMemory:
            "none (in-memory store)"
        case .sqlite:
            "persistent history: SQLite's data_version checked every 20 ms, other processes' "
                + "transactions merged into writer and main by the history consumer"
        case .postgreSQL:
            "persistent history: PostgreSQL's NOTIFY, sent inside every committing transaction and heard on a LISTEN "
                + "connection; other servers' and processes' transactions merged into writer and main by this server's "
                + "history consumer, and kept pages dropped"
        }
    }

    /// The store's kind, as the inspector names it.
    static func storeKind(_ store: StoreLocation) -> String {
        if case .postgreSQL = store { "PostgreSQL store" } else { "SQLite store" }
    }
}
