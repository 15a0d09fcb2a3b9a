import Foundation

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
    /// Rebuilt from the database after another server changed it: the form goes on.
    case rebuilt
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
