/// A route's handler. Synchronous handlers run directly on the libmicrohttpd thread that read the
/// request (the fast path); asynchronous ones run as a task while their connection is suspended,
/// so a slow `await` never holds one of the server's few threads.
enum RouteHandler: Sendable {
    case sync(@Sendable (Request) throws -> Response)
    case async(@Sendable (Request) async throws -> Response)
    /// The first answers on the server thread when it can (a cached page); when it returns
    /// nil, the second runs as a task, as `.async` does.
    case immediateOrAsync(@Sendable (Request) throws -> Response?, @Sendable (Request) async throws -> Response)
}
