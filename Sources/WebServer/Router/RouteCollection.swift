import HTTPTypes

/// Routes that share a path prefix, a ``RequestContext`` and middleware: the middleware runs
/// once for every request of the group, in the order added, before the handler, which receives
/// the filled-in context.
///
/// ```swift
/// let account = router.group("/account", context: AppContext.self).adding(RequireUser())
/// account.get("/") { request, context in .text("Hello \(context.user!.name)") }
/// account.post("/avatar", bodyLimit: 2 << 20) { request, context in try await saveAvatar(request, for: context) }
/// ```
///
/// Handlers run as tasks (as asynchronous handlers of ``Router`` do). A route's `bodyLimit`,
/// or the group's, caps the body it reads: larger ones get 413 before any of the body is read.
public struct RouteCollection<Context: RequestContext> {
    let router: Router
    let prefix: String
    let middleware: [any RouterMiddleware<Context>]
    let bodyLimit: Int?

    init(router: Router, prefix: String, middleware: [any RouterMiddleware<Context>] = [], bodyLimit: Int? = nil) {
        self.router = router
        self.prefix = prefix
        self.middleware = middleware
        self.bodyLimit = bodyLimit
    }

    /// The same group with `middleware` running after the group's others.
    public func adding(_ middleware: some RouterMiddleware<Context>) -> RouteCollection {
        RouteCollection(router: router, prefix: prefix, middleware: self.middleware + [middleware], bodyLimit: bodyLimit)
    }

    /// The same group, whose routes read bodies of at most `bytes` unless a route says otherwise.
    public func limitingBodies(to bytes: Int) -> RouteCollection {
        RouteCollection(router: router, prefix: prefix, middleware: middleware, bodyLimit: bytes)
    }

    /// A group under this one's prefix, with its middleware (and more to add).
    public func group(_ prefix: String) -> RouteCollection {
        RouteCollection(router: router, prefix: self.prefix + prefix, middleware: middleware, bodyLimit: bodyLimit)
    }

    /// Adds a handler for `method` and `pattern` (under the group's prefix).
    @discardableResult
    public func on(_ method: HTTPRequest.Method, _ pattern: String, bodyLimit: Int? = nil,
                   _ handler: @escaping @Sendable (Request, Context) async throws -> Response) -> RouteCollection {
        router.add(method, prefix + pattern,
                   Route(handler: .async(chain(handler)), bodyLimit: bodyLimit ?? self.bodyLimit, admit: admission))
        return self
    }

    /// A GET handler with a fast path on the server thread that answers without the context and
    /// middleware when it can (a page already rendered); when it returns nil, `handler` runs as
    /// a task with the middleware (see ``Router/on(_:_:immediate:_:)``).
    @discardableResult
    public func get(_ pattern: String, immediate: @escaping @Sendable (Request) throws -> Response?,
                    _ handler: @escaping @Sendable (Request, Context) async throws -> Response) -> RouteCollection {
        router.add(.get, prefix + pattern,
                   Route(handler: .immediateOrAsync(immediate, chain(handler)), bodyLimit: nil, admit: admission))
        return self
    }

    @discardableResult
    public func get(_ pattern: String, _ handler: @escaping @Sendable (Request, Context) async throws -> Response) -> RouteCollection {
        on(.get, pattern, handler)
    }

    @discardableResult
    public func post(_ pattern: String, bodyLimit: Int? = nil,
                     _ handler: @escaping @Sendable (Request, Context) async throws -> Response) -> RouteCollection {
        on(.post, pattern, bodyLimit: bodyLimit, handler)
    }

    /// The middleware's header-only checks, in order; nil when none has any to make.
    private var admission: (@Sendable (Request) -> Response?)? {
        let middleware = self.middleware
        guard !middleware.isEmpty else { return nil }
        return { request in
            for middleware in middleware {
                if let refusal = middleware.admit(request) { return refusal }
            }
            return nil
        }
    }

    /// The handler behind the group's middleware, as a plain route handler.
    private func chain(_ handler: @escaping @Sendable (Request, Context) async throws -> Response)
        -> @Sendable (Request) async throws -> Response {
        var next: @Sendable (Request, Context) async throws -> Response = handler
        for middleware in middleware.reversed() {
            let inner = next
            next = { request, context in try await middleware.handle(request, context: context, next: inner) }
        }
        let run = next
        return { request in try await run(request, Context(request: request)) }
    }
}

extension Router {
    /// Routes under `prefix` sharing a context type and, once added, middleware.
    public func group<Context: RequestContext>(_ prefix: String = "", context: Context.Type) -> RouteCollection<Context> {
        RouteCollection(router: self, prefix: prefix)
    }
}
