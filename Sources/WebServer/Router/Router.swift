import HTTPTypes

/// Maps methods and path patterns to handlers.
///
/// Patterns are made of literal segments, parameters (`:pk`, or `:pk.json` whose value excludes
/// the `.json` suffix) and a trailing `**` matching the rest of the path. A request whose path
/// matches no pattern gets 404; one whose path matches but not its method gets 405 with `Allow`;
/// HEAD is answered by the GET handler, without the body.
///
/// ```swift
/// let router = Router()
/// router.get("/clients/:pk") { request in
///     let pk = try request.parameters.require("pk", as: Int.self)
///     return .html(try pages.render("client", ClientPage(pk: pk)))
/// }
/// router.get("/clients/:pk.json") { request in try .json(client(request.parameters["pk"])) }
/// router.post("/clients") { request async throws in
///     let form = try request.form()
///     return .redirect(to: "/clients/\(try await save(form))")
/// }
/// let server = HTTPServer(router: router)
/// ```
/// A handler without `await` runs synchronously on a server thread; one with `await` runs as a
/// task. Configure the router before creating the server: the server takes a copy of the routes.
public final class Router {
    var root = RouteNode()

    public init() {}

    /// Adds a synchronous handler for `method` and `pattern`.
    /// - Parameter bodyLimit: the largest body this route reads, in bytes (nil: the server's
    ///   limit); a request announcing a larger one gets 413 before its body is read.
    @discardableResult
    public func on(_ method: HTTPRequest.Method, _ pattern: String, bodyLimit: Int? = nil,
                   _ handler: @escaping @Sendable (Request) throws -> Response) -> Router {
        add(method, pattern, Route(handler: .sync(handler), bodyLimit: bodyLimit))
    }

    /// Adds an asynchronous handler for `method` and `pattern` (see the synchronous one).
    @discardableResult
    public func on(_ method: HTTPRequest.Method, _ pattern: String, bodyLimit: Int? = nil,
                   _ handler: @escaping @Sendable (Request) async throws -> Response) -> Router {
        add(method, pattern, Route(handler: .async(handler), bodyLimit: bodyLimit))
    }

    @discardableResult
    func add(_ method: HTTPRequest.Method, _ pattern: String, _ route: Route) -> Router {
        root.insert(RoutePatternSegment.parse(pattern), method: method, handler: route)
        return self
    }

    /// Adds a handler with a fast path: `immediate` runs directly on the server thread and
    /// answers when it can do so at once (a page already rendered, say); when it returns nil,
    /// `handler` runs as a task, as any asynchronous handler does. `immediate` must not block.
    ///
    /// ```swift
    /// router.on(.get, "/clients", immediate: { request in cache.response(for: request) }) { request in
    ///     try await render(request)
    /// }
    /// ```
    @discardableResult
    public func on(_ method: HTTPRequest.Method, _ pattern: String,
                   immediate: @escaping @Sendable (Request) throws -> Response?,
                   _ handler: @escaping @Sendable (Request) async throws -> Response) -> Router {
        add(method, pattern, Route(handler: .immediateOrAsync(immediate, handler), bodyLimit: nil))
    }

    /// Routes sharing a path prefix, such as `/api`.
    public func group(_ prefix: String) -> RouterGroup {
        RouterGroup(router: self, prefix: prefix)
    }
}

/// Routes under a common prefix: `router.group("/api").get("/clients") { ... }` serves `/api/clients`.
public struct RouterGroup {
    let router: Router
    let prefix: String

    @discardableResult
    public func on(_ method: HTTPRequest.Method, _ pattern: String,
                   _ handler: @escaping @Sendable (Request) throws -> Response) -> RouterGroup {
        router.on(method, prefix + "/" + pattern, handler)
        return self
    }

    @discardableResult
    public func on(_ method: HTTPRequest.Method, _ pattern: String,
                   _ handler: @escaping @Sendable (Request) async throws -> Response) -> RouterGroup {
        router.on(method, prefix + "/" + pattern, handler)
        return self
    }

    /// A group nested in this one.
    public func group(_ prefix: String) -> RouterGroup {
        RouterGroup(router: router, prefix: self.prefix + "/" + prefix)
    }
}
