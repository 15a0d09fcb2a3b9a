import Foundation
import Logging
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
/// With a database (``stored``, the dashboard's case) this is one server's view of sessions
/// that live in the database: a session or form another server made is taken over on the
/// visitor's first request here, the database decides whether a session is alive and what
/// its flash says, and what ends here (saved, cancelled, evicted) ends there. The limits
/// bound what this process holds in memory; expired records are purged from the database.
///
/// `Sendable`: the sessions and the time of the last sweep live in one `State`, only touched
/// while its mutex is held; the observer is called outside it, and so is the database.
final class SessionStore: Sendable {
    let idleTimeout: Duration
    let limits: SessionLimits
    var maximumForms: Int { limits.formsPerSession }
    let timekeeper: Timekeeper
    /// Where sessions and open forms are shared with other servers; nil keeps them in this
    /// process only.
    let stored: StoredSessions?
    /// The wall-clock time at the timekeeper's zero: stored expiry is a date every server
    /// reads alike, moved by the same clock as the sessions in memory.
    private let wallOrigin: Date
    let logger = Logger(label: "invoices.sessions")

    // Not private: `SessionStore+Rebuilt.swift` reads and replaces forms under the same lock.
    struct State {
        var sessions: [String: Session] = [:]
        /// When expired sessions were last swept.
        var lastSweep: Duration = .zero
        /// Open forms of all sessions together.
        var formCount = 0
        /// Sessions ended to make room, by ID, so their visitors can be told (oldest first,
        /// as many as there may be sessions).
        var ended: [String] = []
        var endedSet: Set<String> = []
        /// When expired records were last purged from the database.
        var lastPurge: Duration = .zero
    }
    let state = Mutex(State())
    /// Told of forms opened and closed (the inspector's timeline); called outside the lock.
    private let observer = Mutex<(@Sendable (FormEvent) -> Void)?>(nil)

    init(idleTimeout: Duration = .seconds(30 * 60), limits: SessionLimits = SessionLimits(),
         timekeeper: Timekeeper = .continuous, stored: StoredSessions? = nil) {
        self.idleTimeout = idleTimeout
        self.limits = limits
        self.timekeeper = timekeeper
        self.stored = stored
        wallOrigin = Date().addingTimeInterval(-timekeeper.now().seconds)
    }

    /// Now, as a date (on the timekeeper's clock).
    func wallNow() -> Date { wallOrigin.addingTimeInterval(timekeeper.now().seconds) }
    /// When a session touched now expires, and the forms it holds with it.
    func expiry() -> Date { wallNow().addingTimeInterval(idleTimeout.seconds) }
    /// How often a visitor's requests move the stored expiry on: not on every page.
    var touchInterval: Duration { min(.seconds(60), idleTimeout / 10) }

    /// What a visitor whose form or session was ended to make room is told.
    static let formEvictedMessage = "A form you had open was closed to make room: the server holds only so many open forms. Nothing of it was saved; open it again to go on."
    static let sessionEndedMessage = "Your earlier session was ended to make room for other visitors, and the forms you had open were closed without saving. Open them again to go on."

    /// The live session for this `sid`, touched; nil when unknown or expired. With a database,
    /// the database decides: a session another server made is taken over, one that ended or
    /// expired there is dropped here, and its flash message is the database's.
    /// While the database cannot answer, this process's own view.
    func session(_ sid: String?) -> Session? {
        do { return try liveSession(sid) } catch { return sid.flatMap(memorySession) }
    }

    /// The live session for this `sid`, as ``session(_:)`` finds it.
    /// - Throws: the store's error while the database cannot answer (``StoreOutage``), so a
    ///   visitor's form is answered 503 (try again) rather than refused as expired.
    func liveSession(_ sid: String?) throws(StoreError) -> Session? {
        guard let sid else { return nil }
        let inMemory = memorySession(sid)
        guard let stored else { return inMemory }
        guard let record = try stored.session(sid, now: wallNow()) else {
            if inMemory != nil { forget(sid) }
            return nil
        }
        return adopt(record, sid: sid)
    }

    /// The session as this process holds it, touched; nil when unknown or expired here.
    private func memorySession(_ sid: String) -> Session? {
        changing { state, now in
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
        let now = timekeeper.now()
        var session = Session(id: Tokens.random(), csrfToken: Tokens.random(), label: "visitor " + Tokens.random().prefix(6),
                              lastSeen: now)
        let ended = state.withLock { state -> Session? in
            if let sid, state.endedSet.remove(sid) != nil {
                state.ended.removeAll { $0 == sid }
                session.flash = Self.sessionEndedMessage
            }
            let ended = makeRoom(in: &state)
            state.sessions[session.id] = session
            return ended
        }
        ended.map(sessionEnded)
        write(session)
        return (session, true)
    }

    /// Past ``SessionLimits/sessions``, ends the session idle longest (under the lock).
    private func makeRoom(in state: inout State) -> Session? {
        guard state.sessions.count >= limits.sessions,
              let idlest = state.sessions.values.min(by: { $0.lastSeen < $1.lastSeen }) else { return nil }
        state.sessions[idlest.id] = nil
        state.formCount -= idlest.forms.count
        Self.remember(ended: idlest.id, in: &state, keeping: limits.sessions)
        return idlest
    }

    /// Tells of a session ended to make room, and ends it in the database too.
    private func sessionEnded(_ ended: Session) {
        for form in ended.forms { notify(.closed(form, sessionID: ended.id, reason: .evicted)) }
        do { try stored?.remove(ended.id) } catch { logger.error("Ending session \(ended.label) in the database failed: \(error)") }
    }

    /// Takes the database's session into memory (a visitor of another server, or of this
    /// one before a restart) with its flash, and moves its stored expiry on when due.
    private func adopt(_ record: StoredSessions.Record, sid: String) -> Session {
        let now = timekeeper.now()
        let (session, ended) = state.withLock { state -> (Session, Session?) in
            var ended: Session?
            var session = state.sessions[sid] ?? Session(id: sid, csrfToken: record.csrfToken, label: record.label,
                                                         lastSeen: now)
            if state.sessions[sid] == nil { ended = makeRoom(in: &state) }
            session.flash = record.flash
            session.lastSeen = now
            state.sessions[sid] = session
            return (session, ended)
        }
        ended.map(sessionEnded)
        let wall = wallNow()
        if record.touchedAt.map({ wall.timeIntervalSince($0) >= touchInterval.seconds }) ?? true {
            do { try stored?.touch(sid, record: record, at: wall, expiresAt: expiry()) } catch {
                logger.error("Moving the expiry of session \(session.label) on failed: \(error)")
            }
        }
        return session
    }

    /// Drops a session this process held that the database no longer has (it expired, or
    /// ended on another server).
    private func forget(_ sid: String) {
        let dropped = state.withLock { state -> Session? in
            guard let session = state.sessions.removeValue(forKey: sid) else { return nil }
            state.formCount -= session.forms.count
            return session
        }
        for form in dropped?.forms ?? [] { notify(.closed(form, sessionID: sid, reason: .expired)) }
    }

    /// Writes the session's record (a new session, a flash set or taken).
    private func write(_ session: Session) {
        do {
            try stored?.save(StoredSessions.Record(csrfToken: session.csrfToken, label: session.label, flash: session.flash,
                                                   touchedAt: wallNow()),
                             for: session.id, expiresAt: expiry())
        } catch {
            logger.error("Writing session \(session.label) to the database failed: \(error)")
        }
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
        for (owner, form) in evicted {
            notify(.closed(form, sessionID: owner, reason: .evicted))
            if form.parentFormID == nil { removeStored(form) }
        }
        // Their sessions' flash says why, on whichever server they come back to.
        for owner in Set(evicted.map(\.0)) { peek(owner).map(write) }
    }

    /// Drops an owner form's record from the database (its scratchpad is gone).
    private func removeStored(_ form: EditForm) {
        do { try stored?.removeForm(form.ownerKey) } catch {
            logger.error("Removing form \(form.ownerKey.prefix(6))… from the database failed: \(error)")
        }
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
    /// An owner form's record leaves the database with it; `inDatabaseToo: false` when the
    /// database has dropped it already.
    func removeForm(_ formID: String, from sid: String, reason: FormClosure = .closed, inDatabaseToo: Bool = true) {
        let removed = state.withLock { state -> [EditForm] in
            guard var session = state.sessions[sid] else { return [] }
            let removed = session.forms.filter { $0.id == formID || $0.parentFormID == formID }
            session.forms.removeAll { $0.id == formID || $0.parentFormID == formID }
            state.sessions[sid] = session
            state.formCount -= removed.count
            return removed
        }
        for form in removed {
            notify(.closed(form, sessionID: sid, reason: reason))
            if inDatabaseToo && form.parentFormID == nil { removeStored(form) }
        }
    }

    /// Sets the one-time message of the session's next page.
    func setFlash(_ message: String, for sid: String) {
        let session = state.withLock { state -> Session? in
            state.sessions[sid]?.flash = message
            return state.sessions[sid]
        }
        session.map(write)
    }

    /// The flash message, removed as it is read.
    func takeFlash(_ sid: String) -> String? {
        let (flash, session) = state.withLock { state -> (String?, Session?) in
            defer { state.sessions[sid]?.flash = nil }
            return (state.sessions[sid]?.flash, state.sessions[sid])
        }
        if flash != nil, var session {
            session.flash = nil
            write(session)
        }
        return flash
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
        purgeStored(now: now)
        return result
    }

    /// Deletes expired sessions and forms from the database, at most once per
    /// ``touchInterval`` (any server may; they delete the same rows).
    private func purgeStored(now: Duration) {
        guard let stored else { return }
        let due = state.withLock { state -> Bool in
            guard now - state.lastPurge >= touchInterval || state.lastPurge == .zero else { return false }
            state.lastPurge = now
            return true
        }
        guard due else { return }
        do { try stored.purgeExpired(now: wallNow()) } catch {
            logger.error("Purging expired sessions from the database failed: \(error)")
        }
    }

    // MARK: Observing forms

    /// Calls `observer` (on the calling thread, outside the store's lock) when a form opens or
    /// closes, and why it closed; replaces any previous observer.
    func observeForms(_ observer: @escaping @Sendable (FormEvent) -> Void) {
        self.observer.withLock { $0 = observer }
    }

    func notify(_ event: FormEvent) {
        observer.withLock { $0 }?(event)
    }
}
