/// Work that runs for every request of a group of routes before its handler: it may fill in
/// the context (a session looked up), answer instead of the handler (a refusal), or change the
/// handler's response on its way out (a cookie set).
///
/// ```swift
/// struct RequireUser: RouterMiddleware {
///     func handle(_ request: Request, context: AppContext,
///                 next: (Request, AppContext) async throws -> Response) async throws -> Response {
///         var context = context
///         guard let user = users.find(request.cookies["sid"]) else { return .text("Who are you?", status: .forbidden) }
///         context.user = user
///         return try await next(request, context)
///     }
/// }
/// ```
public protocol RouterMiddleware<Context>: Sendable {
    associatedtype Context: RequestContext

    /// Runs before the rest of the chain; `next` runs the rest (the next middleware, and last
    /// the handler). Not calling `next` answers the request here.
    func handle(_ request: Request, context: Context,
                next: @Sendable (Request, Context) async throws -> Response) async throws -> Response

    /// Runs as soon as the request line and headers have arrived, before any of the body is
    /// read (`request.body` is empty): an answer refuses the request there, so a body that
    /// would be refused anyway (no session, say) is never read. Nil lets it go on.
    func admit(_ request: Request) -> Response?
}

extension RouterMiddleware {
    /// Admits every request: the middleware decides in ``handle(_:context:next:)``.
    public func admit(_ request: Request) -> Response? { nil }
}
