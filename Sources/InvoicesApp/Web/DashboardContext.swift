import WebServer

/// What the dashboard's middleware learns about a request before its handler runs: who is
/// asking (their session, if they have one), and the form a CSRF check already read.
struct DashboardContext: RequestContext {
    /// The visitor's live session; nil for a visitor without one (read pages make none).
    var session: Session?
    /// The session was made for this request: the response sets its cookie.
    var sessionIsNew = false
    /// The submitted form, read once by ``CSRFCheck``.
    var form: FormData?

    init(request: Request) {}

    /// The session, for handlers behind ``SessionMiddleware`` made with `creating: true` or
    /// ``CSRFCheck``, which always have one.
    var requiredSession: Session {
        get throws(HTTPError) {
            guard let session else { throw HTTPError(.forbidden, "This page needs a session (cookies).") }
            return session
        }
    }
}
