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

/// A route as the server keeps it: its handler, and the largest body it accepts.
struct Route: Sendable {
    let handler: RouteHandler
    /// The largest request body this route reads, in bytes (nil: the server's limit). A body
    /// announced larger is refused with 413 before any of it is read.
    let bodyLimit: Int?
    /// Decides from the request line and headers alone (the body is empty) whether the
    /// request may go on; an answer refuses it before any of its body is read.
    var admit: (@Sendable (Request) -> Response?)? = nil
}
