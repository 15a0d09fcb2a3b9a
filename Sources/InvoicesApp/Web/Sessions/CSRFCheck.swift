import Foundation
import HTTPTypes
import ObjectGraph
import WebServer

/// For the routes that change something: the request must come from a live session and carry
/// that session's CSRF token (the form's `csrf` field, or the `X-CSRF-Token` header), or it is
/// refused with a 403 page and nothing changes. The session, and a token sent as a header, are
/// checked as soon as the headers arrive, before any of the body is read (``admit(_:)``), so
/// an anonymous upload costs nothing to refuse. In a multipart upload the token is the first
/// part, checked before the rest is parsed. The form read here is handed on in the context.
struct CSRFCheck: RouterMiddleware {
    static let headerName = HTTPField.Name("X-CSRF-Token")!

    let renderer: PageRenderer

    func admit(_ request: Request) -> Response? {
        let found: Session?
        do { found = try renderer.sessions.liveSession(request.cookies[SessionMiddleware.cookieName]) } catch {
            return unavailable(error)
        }
        guard let session = found else {
            return refused("Your session has expired (or cookies are off), so this form cannot be accepted.", session: nil)
        }
        if let token = request.headers[Self.headerName], !Tokens.constantTimeEqual(token, session.csrfToken) {
            return refused("The form's security token is missing or wrong, so nothing was changed.", session: session)
        }
        return nil
    }

    func handle(_ request: Request, context: DashboardContext,
                next: @Sendable (Request, DashboardContext) async throws -> Response) async throws -> Response {
        guard let session = context.session else {
            return refused("Your session has expired (or cookies are off), so this form cannot be accepted.", session: nil)
        }
        var context = context
        let leading = try request.leadingFormFields(1)
        guard let token = request.headers[Self.headerName] ?? leading["csrf"],
              Tokens.constantTimeEqual(token, session.csrfToken) else {
            return refused("The form's security token is missing or wrong, so nothing was changed.", session: session)
        }
        context.form = request.contentType == "multipart/form-data" ? try request.form() : leading
        return try await next(request, context)
    }

    /// The database cannot say whether the session is alive: 503, try again (the form is kept).
    private func unavailable(_ error: StoreError) -> Response {
        var response = renderer.errorPage(
            .serviceUnavailable, title: "Try again in a few seconds",
            message: "The database cannot answer right now: \(StoreFailureReason.describe(error)). Nothing was saved; your form is kept. Send it again in a few seconds.",
            link: "/clients", linkText: "Back to the clients", session: nil)
        response.headers[.retryAfter] = "5"
        return response
    }

    private func refused(_ reason: String, session: Session?) -> Response {
        renderer.errorPage(.forbidden, title: "Not accepted", message: reason + " Reload the page and try again.",
                           link: "/clients", linkText: "Back to the clients", session: session)
    }
}
