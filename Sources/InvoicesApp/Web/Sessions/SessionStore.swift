import Foundation
import ObjectGraph
import Synchronization

/// The visitors' sessions, keyed by the random `sid` cookie.
///
/// Idle sessions expire after ``idleTimeout``; expiry drops their forms, and with them the
/// scratchpads (a parent context holds its children weakly, so the contexts go away).
///
/// Whatever visitors do, what the store holds is bounded (``SessionLimits``): a session keeps
/// at most so many open forms (opening another closes its oldest), all sessions together at
/// most so many forms (opening another closes a form of the session idle longest), and there
/// are at most so many sessions (a new one ends the session idle longest). Whoever lost a form
/// or a session that way is told on their next page.
///
/// `Sendable`: the sessions and the time of the last sweep live in one `State`, only touched
/// while its mutex is held; the observer is called outside it.
final class SessionStore: Sendable {
    let idleTimeout: Duration
    let limits: SessionLimits
    var maximumForms: Int { limits.formsPerSession }
    let timekeeper: Timekeeper

    private struct State {
        var sessions: [String: Session] = [:]
        /// When expired sessions were last swept.
        var lastSweep: Duration = .zero
        /// Open forms of all sessions together.
        var formCount = 0
        /// Sessions ended to make room, by ID, so their visitors can be told (oldest first,
        /// as many as there may be sessions).
        var ended: [String] = []
        var endedSet: Set<String> = []
    }
    private let state = Mutex(State())
    /// Told of forms opened and closed (the inspector's timeline); called outside the lock.
    private let observer = Mutex<(@Sendable (FormEvent) -> Void)?>(nil)

    init(idleTimeout: Duration = .seconds(30 * 60), limits: SessionLimits = SessionLimits(),
         timekeeper: Timekeeper = .continuous) {
        self.idleTimeout = idleTimeout
        self.limits = limits
        self.timekeeper = timekeeper
    }

    /// What a visitor whose form or session was ended to make room is told.
    static let formEvictedMessage = "A form you had open was closed to make room: the server holds only so many open forms. Nothing of it was saved; open it again to go on."
    static let sessionEndedMessage = "Your earlier session was ended to make room for other visitors, and the forms you had open were closed without saving. Open them again to go on."

    /// The live session for this `sid`, touched; nil when unknown or expired.
    func session(_ sid: String?) -> Session? {
        guard let sid else { return nil }
        return changing { state, now in
            guard var session = state.sessions[sid] else { return nil }
            guard now - session.lastSeen < idleTimeout else {
                state.sessions[sid] = nil
                state.formCount -= session.forms.count
                return nil
            }
            session.lastSeen = now
            state.sessions[sid] = session
            return session
        }
    }

    /// The session for `sid`, or a new one (then `isNew` is true and the response sets the
    /// cookie). Past ``SessionLimits/sessions``, the session idle longest ends to make room.
    func sessionOrNew(_ sid: String?) -> (session: Session, isNew: Bool) {
        if let existing = session(sid) { return (existing, false) }
        var session = Session(id: Tokens.random(), csrfToken: Tokens.random(), label: "visitor " + Tokens.random().prefix(6),
                              lastSeen: timekeeper.now())
        let ended = state.withLock { state -> Session? in
            if let sid, state.endedSet.remove(sid) != nil {
                state.ended.removeAll { $0 == sid }
                session.flash = Self.sessionEndedMessage
            }
            var ended: Session?
            if state.sessions.count >= limits.sessions, let idlest = state.sessions.values.min(by: { $0.lastSeen < $1.lastSeen }) {
                ended = state.sessions.removeValue(forKey: idlest.id)
                state.formCount -= idlest.forms.count
                Self.remember(ended: idlest.id, in: &state, keeping: limits.sessions)
            }
            state.sessions[session.id] = session
            return ended
        }
        for form in ended?.forms ?? [] { notify(.closed(form, sessionID: ended?.id ?? "", reason: .evicted)) }
        return (session, true)
    }

    /// Whether `sid` names a session ended to make room (its visitor has not been told yet).
    func wasEnded(_ sid: String?) -> Bool {
        guard let sid else { return false }
        return state.withLock { $0.endedSet.contains(sid) }
    }

    private static func remember(ended id: String, in state: inout State, keeping limit: Int) {
        state.ended.append(id)
        state.endedSet.insert(id)
        if state.ended.count > limit {
            state.endedSet.remove(state.ended.removeFirst())
        }
    }

    /// Adds a form to the session. Past ``SessionLimits/formsPerSession`` the session's oldest
    /// form closes; past ``SessionLimits/forms`` in all, the oldest form of the session idle
    /// longest does, and that session is told on its next page.
    func add(_ form: EditForm, to sid: String) {
        let (added, evicted) = state.withLock { state -> (Bool, [(String, EditForm)]) in
            guard var session = state.sessions[sid] else { return (false, []) }
            session.forms.append(form)
            state.formCount += 1
            var evicted: [(String, EditForm)] = []
            if session.forms.count > limits.formsPerSession {
                let dropped = session.forms.prefix(session.forms.count - limits.formsPerSession)
                evicted = dropped.map { (sid, $0) }
                session.forms.removeFirst(dropped.count)
                session.flash = Self.formEvictedMessage
                state.formCount -= dropped.count
            }
            state.sessions[sid] = session
            while state.formCount > limits.forms, let taken = Self.takeIdlestForm(from: &state, sparing: sid) {
                evicted.append(taken)
            }
            return (true, evicted)
        }
        if added { notify(.opened(form, sessionID: sid)) }
        for (owner, form) in evicted { notify(.closed(form, sessionID: owner, reason: .evicted)) }
    }

    /// Closes the oldest form of the session idle longest (other than `sparing`), telling
    /// its session on its next page.
    private static func takeIdlestForm(from state: inout State, sparing sid: String) -> (String, EditForm)? {
        guard var idlest = state.sessions.values.filter({ $0.id != sid && !$0.forms.isEmpty })
            .min(by: { $0.lastSeen < $1.lastSeen }) else { return nil }
        let form = idlest.forms.removeFirst()
        idlest.flash = formEvictedMessage
        state.sessions[idlest.id] = idlest
        state.formCount -= 1
        return (idlest.id, form)
    }

    /// Closes a form (after save or cancel), and the forms opened inside it: their URLs answer
    /// 410 from now on. `reason` is what observers are told.
    func removeForm(_ formID: String, from sid: String, reason: FormClosure = .closed) {
        let removed = state.withLock { state -> [EditForm] in
            guard var session = state.sessions[sid] else { return [] }
            let removed = session.forms.filter { $0.id == formID || $0.parentFormID == formID }
            session.forms.removeAll { $0.id == formID || $0.parentFormID == formID }
            state.sessions[sid] = session
            state.formCount -= removed.count
            return removed
        }
        for form in removed { notify(.closed(form, sessionID: sid, reason: reason)) }
    }

    /// Sets the one-time message of the session's next page.
    func setFlash(_ message: String, for sid: String) {
        state.withLock { $0.sessions[sid]?.flash = message }
    }

    /// The flash message, removed as it is read.
    func takeFlash(_ sid: String) -> String? {
        state.withLock { state in
            defer { state.sessions[sid]?.flash = nil }
            return state.sessions[sid]?.flash
        }
    }

    /// The objects open in some form of any live session, for the "being edited" marks.
    func objectsBeingEdited() -> Set<ObjectID> {
        changing { state, now in
            var ids = Set<ObjectID>()
            for session in state.sessions.values where now - session.lastSeen < idleTimeout {
                for form in session.forms where !form.isNew { ids.insert(form.objectID) }
            }
            return ids
        }
    }

    /// How many sessions are alive (for tests and the log).
    var count: Int { state.withLock { $0.sessions.count } }
    /// How many forms all sessions hold open.
    var formCount: Int { state.withLock { $0.formCount } }

    /// Every open form of every live session, oldest session activity first, after dropping
    /// expired sessions (so their forms are reported closed now).
    func openForms() -> [OpenForm] {
        changing(forcingSweep: true) { state, now in
            state.sessions.values.sorted { $0.lastSeen < $1.lastSeen }.flatMap { session in
                session.forms.map { OpenForm(sessionID: session.id, form: $0, expiresIn: session.lastSeen + idleTimeout - now) }
            }
        }
    }

    /// Runs `body` on the state under the lock, after sweeping expired sessions (at most once a
    /// second unless forced: a session found expired in between is refused anyway), then tells
    /// the observer of the forms that expiry closed.
    private func changing<T>(forcingSweep: Bool = false, _ body: (inout State, Duration) -> T) -> T {
        let now = timekeeper.now()
        var expired: [Session] = []
        let result = state.withLock { state -> T in
            if forcingSweep || now - state.lastSweep >= .seconds(1) || idleTimeout < .seconds(1) {
                state.lastSweep = now
                expired = state.sessions.values.filter { now - $0.lastSeen >= idleTimeout }
                for session in expired {
                    state.sessions[session.id] = nil
                    state.formCount -= session.forms.count
                }
            }
            return body(&state, now)
        }
        for session in expired {
            for form in session.forms { notify(.closed(form, sessionID: session.id, reason: .expired)) }
        }
        return result
    }

    // MARK: Observing forms

    /// Calls `observer` (on the calling thread, outside the store's lock) when a form opens or
    /// closes, and why it closed; replaces any previous observer.
    func observeForms(_ observer: @escaping @Sendable (FormEvent) -> Void) {
        self.observer.withLock { $0 = observer }
    }

    private func notify(_ event: FormEvent) {
        observer.withLock { $0 }?(event)
    }
}

/// A form of a live session, as ``SessionStore/openForms()`` lists it.
struct OpenForm: Sendable {
    let sessionID: String
    let form: EditForm
    /// How long until the session (and so the form) expires unless the visitor comes back.
    let expiresIn: Duration

    var expiresAt: Date { Date().addingTimeInterval(expiresIn.seconds) }
}

/// Why a form was closed.
enum FormClosure: String, Sendable {
    case saved, cancelled
    /// Its session was idle past the timeout.
    case expired
    /// Its session opened more forms than it may hold.
    case evicted
    case closed
}

/// A form opened or closed, for observers of a ``SessionStore``.
enum FormEvent: Sendable {
    case opened(EditForm, sessionID: String)
    case closed(EditForm, sessionID: String, reason: FormClosure)
}

extension Duration {
    /// As seconds, with the fraction.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
