import Foundation
import HTTPTypes
import WebServer

/// A POST that passed the session and CSRF checks.
struct Submission: Sendable {
    let session: Session
    let fields: QueryParameters
}

/// Whether a POST may change anything.
enum PostCheck: Sendable {
    case accepted(Submission)
    /// The 403 page (no session, or a missing or wrong CSRF token); nothing was changed.
    case refused(Response)
}

extension Dashboard {
    /// Reads a POST's form and checks that it is at most `maximumSize` bytes, comes from a
    /// live session and carries that session's CSRF token (field `csrf`).
    /// - Throws: `HTTPError` 400/415 when the body is not a form.
    func checkedPost(_ request: Request, maximumSize: Int = Dashboard.maximumFormSize) throws(HTTPError) -> PostCheck {
        guard request.body.count <= maximumSize else {
            return .refused(errorPage(.contentTooLarge, title: "Too large",
                                      message: "The form is too large (\(request.body.count / 1024) KB; at most \(maximumSize / 1024) KB). "
                                        + "Shorten the text and send it again.",
                                      link: "/clients", linkText: "Back to the clients", visit: visit(request)))
        }
        let form = try request.form()
        guard let session = sessions.session(request.cookies[Self.sessionCookie]) else {
            return .refused(forbidden(visit: visit(request),
                                      reason: "Your session has expired (or cookies are off), so this form cannot be accepted."))
        }
        guard let token = form["csrf"], Self.constantTimeEqual(token, session.csrfToken) else {
            return .refused(forbidden(visit: (session, false),
                                      reason: "The form's security token is missing or wrong, so nothing was changed."))
        }
        return .accepted(Submission(session: session, fields: form.fields))
    }

    private func forbidden(visit: Visit, reason: String) -> Response {
        errorPage(.forbidden, title: "Not accepted", message: reason + " Reload the page and try again.",
                  link: "/clients", linkText: "Back to the clients", visit: visit)
    }

    /// Compares without stopping at the first difference, so timing says nothing of the token.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }
}
