import Foundation
import Logging
import ObjectGraph

/// Sessions and open forms as the database holds them, so that any server on the same
/// store can take over a visitor: a cookie issued by one server is honoured by another, and
/// a form opened on one is continued on another (see ``StoredForm``).
///
/// Both live in ObjectGraph's ``StoreRecords`` ("sessions", "forms"), outside the model's
/// entities: writing them records no history and moves no change signal, so a visitor
/// typing into a form is no data change for anyone. Every record expires (a session
/// `idleTimeout` after it was last touched, a form with its session); any server purges what
/// expired. Sessions are stored under the digest of their ID (``StoredSessionKey``), never
/// the ID itself.
///
/// `Sendable`: immutable; ``StoreRecords`` guards its connections.
final class StoredSessions: Sendable {
    /// What a session record holds (its key is the session ID).
    struct Record: Codable, Sendable {
        let csrfToken: String
        let label: String
        var flash: String?
        /// When its expiry was last moved on, by any server: each server moves it on only
        /// when this is older than ``SessionStore/touchInterval``.
        var touchedAt: Date?
    }

    private let sessions: StoreRecords
    private let forms: StoreRecords
    private let logger = Logger(label: "invoices.sessions")

    /// - Throws: ``StoreError`` when the records' table cannot be made.
    init(coordinator: PersistentStoreCoordinator) throws {
        sessions = try coordinator.records(named: "sessions")
        forms = try coordinator.records(named: "forms")
    }

    // MARK: Sessions

    /// The live session record for `sid`, or nil (unknown, expired, or unreadable: logged, and
    /// the visitor gets a new session rather than an error page).
    /// - Throws: the store's error when the database cannot answer for a while
    ///   (``StoreOutage``): the session may well be there, so it must not be taken for gone.
    func session(_ sid: String, now: Date) throws(StoreError) -> Record? {
        do {
            guard let text = try sessions.value(for: StoredSessionKey.of(sid), now: now) else { return nil }
            return try JSONDecoder().decode(Record.self, from: Data(text.utf8))
        } catch let error as StoreError where StoreOutage.isTemporary(error) {
            throw error
        } catch {
            logger.error("Session \(sid.prefix(6))… in the database cannot be read: \(error)")
            return nil
        }
    }

    /// Writes a session record, live until `expiresAt`.
    func save(_ record: Record, for sid: String, expiresAt: Date) throws {
        let text = String(decoding: try JSONEncoder().encode(record), as: UTF8.self)
        try sessions.setValue(text, for: StoredSessionKey.of(sid), expiresAt: expiresAt)
    }

    /// Keeps the session and its forms alive until `expiresAt`.
    func touch(_ sid: String, record: Record, at now: Date, expiresAt: Date) throws {
        var record = record
        record.touchedAt = now
        try save(record, for: sid, expiresAt: expiresAt)
        try forms.extendExpiry(ofGroup: StoredSessionKey.of(sid), to: expiresAt)
    }

    /// Ends a session with its forms.
    func remove(_ sid: String) throws {
        let key = StoredSessionKey.of(sid)
        try sessions.removeValue(for: key)
        try forms.removeAll(inGroup: key)
    }

    /// Deletes expired sessions and forms; returns how many records went.
    @discardableResult
    func purgeExpired(now: Date) throws -> Int {
        try sessions.removeExpired(asOf: now) + forms.removeExpired(asOf: now)
    }

    // MARK: Forms

    /// The stored form whose scratchpad has the key `key` (its owner form's ID), or nil.
    /// - Throws: ``StoreError``, or a decoding error for a record another version wrote.
    func form(_ key: String, now: Date) throws -> StoredForm? {
        guard let text = try forms.value(for: key, now: now) else { return nil }
        return try JSONDecoder().decode(StoredForm.self, from: Data(text.utf8))
    }

    /// Writes a form's scratchpad under its owner form's ID, in its session's group.
    func save(_ form: StoredForm, session sid: String, expiresAt: Date) throws {
        let text = String(decoding: try JSONEncoder().encode(form), as: UTF8.self)
        try forms.setValue(text, for: form.key, group: StoredSessionKey.of(sid), expiresAt: expiresAt)
    }

    /// Drops a stored form (saved, cancelled, closed).
    func removeForm(_ key: String) throws {
        try forms.removeValue(for: key)
    }

    /// How many open forms the database holds, of every server.
    func formCount(now: Date) throws -> Int {
        try forms.count(asOf: now)
    }
}
