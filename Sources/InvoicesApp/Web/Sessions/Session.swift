import Foundation

/// One visitor's server-side state: the CSRF token, the open edit forms (each with its own
/// scratchpad) and a one-time flash message. Value type; the ``SessionStore`` owns the copies.
struct Session: Sendable {
    let id: String
    let csrfToken: String
    /// How history names this visitor ("visitor 3fa9c1"): short, made at random, not the
    /// session's secret ID.
    let label: String
    /// When the visitor was last seen, on the store's ``Timekeeper``.
    var lastSeen: Duration
    /// Oldest first, so the store drops from the front when a session has too many.
    var forms: [EditForm] = []
    /// Shown once, on the next page the visitor reads.
    var flash: String?
    /// When the database's record of the session was last written (``StoredSessions``), on
    /// the store's ``Timekeeper``: it is moved on at most once per ``SessionStore/touchInterval``.
    var storedAt: Duration = .zero

    func form(_ id: String) -> EditForm? { forms.first { $0.id == id } }
}
