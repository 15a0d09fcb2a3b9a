/// Per-request state that a group of routes shares: made fresh for each request, filled in by
/// the group's middleware (who is asking, what they sent), and handed to the handler, in the
/// manner of Hummingbird's `RequestContext`.
///
/// ```swift
/// struct AppContext: RequestContext {
///     var user: User?
///     init(request: Request) {}
/// }
/// ```
public protocol RequestContext: Sendable {
    /// An empty context for `request`: the middleware fills it in.
    init(request: Request)
}

/// The context of routes that need none.
public struct BasicRequestContext: RequestContext {
    public init(request: Request) {}
}
