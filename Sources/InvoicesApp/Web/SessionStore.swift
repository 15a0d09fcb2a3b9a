import Foundation
import ObjectGraph
import Synchronization

/// One visitor's server-side state: the CSRF token, the open edit forms (each with its own
/// scratchpad) and a one-time flash message. Value type; the ``SessionStore`` owns the copies.
struct Session: Sendable {
    let id: String
    let csrfToken: String
    var lastSeen: ContinuousClock.Instant
    /// Oldest first, so the store drops from the front when a session has too many.
    var forms: [EditForm] = []
    /// Shown once, on the next page the visitor reads.
    var flash: String?

    func form(_ id: String) -> EditForm? { forms.first { $0.id == id } }
}

/// The visitors' sessions, keyed by the random `sid` cookie.
///
/// Idle sessions expire after ``idleTimeout``; expiry drops their forms, and with them the
/// scratchpads (a parent context holds its children weakly, so the contexts go away). A session
/// keeps at most ``maximumForms`` open forms: opening another drops the oldest.
///
/// `Sendable`: every session lives in `sessions`, which is only touched while its mutex is held.
final class SessionStore: Sendable {
    let idleTimeout: Duration
    let maximumForms: Int
    private let sessions = Mutex<[String: Session]>([:])
    /// When expired sessions were last swept; touched only under `sessions`' lock.
    private let lastSweep = Mutex<ContinuousClock.Instant>(.now)
    /// Told of forms opened and closed (the inspector's timeline); called outside `sessions`' lock.
    private let observer = Mutex<(@Sendable (FormEvent) -> Void)?>(nil)

    init(idleTimeout: Duration = .seconds(30 * 60), maximumForms: Int = 20) {
        self.idleTimeout = idleTimeout
        self.maximumForms = maximumForms
    }

    /// The live session for this `sid`, touched; nil when unknown or expired.
    func session(_ sid: String?) -> Session? {
        guard let sid else { return nil }
        let now = ContinuousClock.now
        var expired: [Session] = []
        let found = sessions.withLock { all -> Session? in
            expired = expire(&all, now: now)
            guard var session = all[sid], now - session.lastSeen < idleTimeout else {
                if let gone = all.removeValue(forKey: sid) { expired.append(gone) }
                return nil
            }
            session.lastSeen = now
            all[sid] = session
            return session
        }
        notifyExpired(expired)
        return found
    }

    /// The session for `sid`, or a new one (then `isNew` is true and the caller sets the cookie).
    func sessionOrNew(_ sid: String?) -> (session: Session, isNew: Bool) {
        if let existing = session(sid) { return (existing, false) }
        let session = Session(id: Self.randomToken(), csrfToken: Self.randomToken(), lastSeen: .now)
        sessions.withLock { $0[session.id] = session }
        return (session, true)
    }

    /// Adds a form to the session, dropping its oldest forms past ``maximumForms``.
    func add(_ form: EditForm, to sid: String) {
        let (added, evicted) = sessions.withLock { all -> (Bool, [EditForm]) in
            guard var session = all[sid] else { return (false, []) }
            session.forms.append(form)
            var evicted: [EditForm] = []
            if session.forms.count > maximumForms {
                evicted = Array(session.forms.prefix(session.forms.count - maximumForms))
                session.forms.removeFirst(evicted.count)
            }
            all[sid] = session
            return (true, evicted)
        }
        if added { notify(.opened(form, sessionID: sid)) }
        for form in evicted { notify(.closed(form, sessionID: sid, reason: .evicted)) }
    }

    /// Replaces a form's state (its kept input and errors); no-op when the form is gone.
    func update(_ form: EditForm, in sid: String) {
        sessions.withLock { all in
            guard var session = all[sid], let index = session.forms.firstIndex(where: { $0.id == form.id }) else { return }
            session.forms[index] = form
            all[sid] = session
        }
    }

    /// Closes a form (after save or cancel), and the invoice forms opened inside it: their
    /// URLs answer 410 from now on. `reason` is what observers are told.
    func removeForm(_ formID: String, from sid: String, reason: FormClosure = .closed) {
        let removed = sessions.withLock { all -> [EditForm] in
            guard var session = all[sid] else { return [] }
            let removed = session.forms.filter { $0.id == formID || $0.parentFormID == formID }
            session.forms.removeAll { $0.id == formID || $0.parentFormID == formID }
            all[sid] = session
            return removed
        }
        for form in removed { notify(.closed(form, sessionID: sid, reason: reason)) }
    }

    /// Sets the one-time message of the session's next page.
    func setFlash(_ message: String, for sid: String) {
        sessions.withLock { all in all[sid]?.flash = message }
    }

    /// The flash message, removed as it is read.
    func takeFlash(_ sid: String) -> String? {
        sessions.withLock { all in
            let message = all[sid]?.flash
            all[sid]?.flash = nil
            return message
        }
    }

    /// The objects open in some form of any live session, for the "being edited" marks.
    func objectsBeingEdited() -> Set<ObjectID> {
        let now = ContinuousClock.now
        var expired: [Session] = []
        let ids = sessions.withLock { all -> Set<ObjectID> in
            expired = expire(&all, now: now)
            var ids = Set<ObjectID>()
            for session in all.values where now - session.lastSeen < idleTimeout {
                for form in session.forms where !form.isNew { ids.insert(form.objectID) }
            }
            return ids
        }
        notifyExpired(expired)
        return ids
    }

    /// How many sessions are alive (for tests and the log).
    var count: Int { sessions.withLock { $0.count } }

    /// Drops the sessions idle for longer than ``idleTimeout`` and returns them. A full sweep
    /// runs at most once a second (a session found expired is refused by `session(_:)` in
    /// between), unless `force`.
    private func expire(_ all: inout [String: Session], now: ContinuousClock.Instant,
                        force: Bool = false) -> [Session] {
        let timeout = idleTimeout
        let due = lastSweep.withLock { last in
            guard force || now - last >= .seconds(1) || timeout < .seconds(1) else { return false }
            last = now
            return true
        }
        guard due else { return [] }
        let expired = all.values.filter { now - $0.lastSeen >= timeout }
        for session in expired { all[session.id] = nil }
        return expired
    }

    // MARK: Observing forms

    /// Calls `observer` (on the calling thread, outside the store's lock) when a form opens or
    /// closes, and why it closed; replaces any previous observer.
    func observeForms(_ observer: @escaping @Sendable (FormEvent) -> Void) {
        self.observer.withLock { $0 = observer }
    }

    /// Every open form of every live session, oldest session activity first, after dropping
    /// expired sessions (so their forms are reported closed now).
    func openForms() -> [OpenForm] {
        let now = ContinuousClock.now
        var expired: [Session] = []
        let open = sessions.withLock { all -> [OpenForm] in
            expired = expire(&all, now: now, force: true)
            return all.values.sorted { $0.lastSeen < $1.lastSeen }.flatMap { session in
                session.forms.map { OpenForm(sessionID: session.id, form: $0, expiresAt: session.lastSeen + idleTimeout) }
            }
        }
        notifyExpired(expired)
        return open
    }

    private func notify(_ event: FormEvent) {
        observer.withLock { $0 }?(event)
    }

    private func notifyExpired(_ expired: [Session]) {
        for session in expired {
            for form in session.forms { notify(.closed(form, sessionID: session.id, reason: .expired)) }
        }
    }

    /// 32 random bytes as hex: a session ID or CSRF token nobody can guess.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let value = generator.next() as UInt64
            let hex = String(value, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}

/// A form of a live session, as ``SessionStore/openForms()`` lists it.
struct OpenForm: Sendable {
    let sessionID: String
    let form: EditForm
    /// When the session (and so the form) expires unless the visitor comes back.
    let expiresAt: ContinuousClock.Instant
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
