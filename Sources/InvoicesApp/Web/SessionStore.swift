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

    init(idleTimeout: Duration = .seconds(30 * 60), maximumForms: Int = 20) {
        self.idleTimeout = idleTimeout
        self.maximumForms = maximumForms
    }

    /// The live session for this `sid`, touched; nil when unknown or expired.
    func session(_ sid: String?) -> Session? {
        guard let sid else { return nil }
        let now = ContinuousClock.now
        return sessions.withLock { all in
            expire(&all, now: now)
            guard var session = all[sid], now - session.lastSeen < idleTimeout else {
                all[sid] = nil
                return nil
            }
            session.lastSeen = now
            all[sid] = session
            return session
        }
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
        sessions.withLock { all in
            guard var session = all[sid] else { return }
            session.forms.append(form)
            if session.forms.count > maximumForms { session.forms.removeFirst(session.forms.count - maximumForms) }
            all[sid] = session
        }
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
    /// URLs answer 410 from now on.
    func removeForm(_ formID: String, from sid: String) {
        sessions.withLock { all in all[sid]?.forms.removeAll { $0.id == formID || $0.parentFormID == formID } }
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
        return sessions.withLock { all in
            expire(&all, now: now)
            var ids = Set<ObjectID>()
            for session in all.values where now - session.lastSeen < idleTimeout {
                for form in session.forms where !form.isNew { ids.insert(form.objectID) }
            }
            return ids
        }
    }

    /// How many sessions are alive (for tests and the log).
    var count: Int { sessions.withLock { $0.count } }

    /// Drops the sessions idle for longer than ``idleTimeout``. A full sweep runs at most
    /// once a second (a session found expired is refused by `session(_:)` in between).
    private func expire(_ all: inout [String: Session], now: ContinuousClock.Instant) {
        let timeout = idleTimeout
        let due = lastSweep.withLock { last in
            guard now - last >= .seconds(1) || timeout < .seconds(1) else { return false }
            last = now
            return true
        }
        if due { all = all.filter { now - $0.value.lastSeen < timeout } }
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
