import Foundation
import WebServer

/// Finds the visitor's session by the `sid` cookie, or makes one (`creating`: pages that hold a
/// form). On the way out, a new session's cookie is set, and a response that did not say how it
/// may be cached gets `Cache-Control: no-store` (it was made for this visitor).
///
/// Read pages look sessions up without making them, so a crawler or a benchmark reading lists
/// leaves no sessions behind.
struct SessionMiddleware: RouterMiddleware {
    static let cookieName = "sid"

    let sessions: SessionStore
    let creating: Bool

    func handle(_ request: Request, context: DashboardContext,
                next: @Sendable (Request, DashboardContext) async throws -> Response) async throws -> Response {
        var context = context
        let sid = request.cookies[Self.cookieName]
        if !creating, let existing = sessions.session(sid) {
            context.session = existing
        } else if creating || sessions.wasEnded(sid) {
            // (A visitor whose session ended to make room gets a new one, which tells them.)
            let (session, isNew) = sessions.sessionOrNew(sid)
            context.session = session
            context.sessionIsNew = isNew
        }
        var response = try await next(request, context)
        if context.sessionIsNew, let session = context.session { response.setCookie(Self.cookie(session.id, secure: request.isSecure)) }
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }

    /// `secure` when the visitor came over HTTPS through a trusted proxy: the browser then never
    /// sends the session over plain HTTP.
    static func cookie(_ sid: String, secure: Bool) -> Cookie {
        Cookie(name: cookieName, value: sid, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }
}
