import HTTPTypes

// The verb shorthands, for synchronous and asynchronous handlers alike.

extension Router {
    @discardableResult public func get(_ pattern: String, _ handler: @escaping @Sendable (Request) throws -> Response) -> Router { on(.get, pattern, handler) }
    @discardableResult public func get(_ pattern: String, _ handler: @escaping @Sendable (Request) async throws -> Response) -> Router { on(.get, pattern, handler) }
    /// A GET handler with a fast path on the server thread (see `on(_:_:immediate:_:)`).
    @discardableResult public func get(_ pattern: String, immediate: @escaping @Sendable (Request) throws -> Response?,
                                       _ handler: @escaping @Sendable (Request) async throws -> Response) -> Router {
        on(.get, pattern, immediate: immediate, handler)
    }
    @discardableResult public func post(_ pattern: String, _ handler: @escaping @Sendable (Request) throws -> Response) -> Router { on(.post, pattern, handler) }
    @discardableResult public func post(_ pattern: String, _ handler: @escaping @Sendable (Request) async throws -> Response) -> Router { on(.post, pattern, handler) }
    @discardableResult public func put(_ pattern: String, _ handler: @escaping @Sendable (Request) throws -> Response) -> Router { on(.put, pattern, handler) }
    @discardableResult public func put(_ pattern: String, _ handler: @escaping @Sendable (Request) async throws -> Response) -> Router { on(.put, pattern, handler) }
    @discardableResult public func patch(_ pattern: String, _ handler: @escaping @Sendable (Request) throws -> Response) -> Router { on(.patch, pattern, handler) }
    @discardableResult public func patch(_ pattern: String, _ handler: @escaping @Sendable (Request) async throws -> Response) -> Router { on(.patch, pattern, handler) }
    @discardableResult public func delete(_ pattern: String, _ handler: @escaping @Sendable (Request) throws -> Response) -> Router { on(.delete, pattern, handler) }
    @discardableResult public func delete(_ pattern: String, _ handler: @escaping @Sendable (Request) async throws -> Response) -> Router { on(.delete, pattern, handler) }

    /// Serves the files of `files` under `prefix` (GET and HEAD), for example `/static/app.css`.
    @discardableResult
    public func serveFiles(at prefix: String, from files: StaticFiles) -> Router {
        on(.get, prefix + "/**") { request in files.response(for: request) }
    }
}

extension RouterGroup {
    @discardableResult public func get(_ pattern: String, _ handler: @escaping @Sendable (Request) throws -> Response) -> RouterGroup { on(.get, pattern, handler) }
    @discardableResult public func get(_ pattern: String, _ handler: @escaping @Sendable (Request) async throws -> Response) -> RouterGroup { on(.get, pattern, handler) }
    @discardableResult public func post(_ pattern: String, _ handler: @escaping @Sendable (Request) throws -> Response) -> RouterGroup { on(.post, pattern, handler) }
    @discardableResult public func post(_ pattern: String, _ handler: @escaping @Sendable (Request) async throws -> Response) -> RouterGroup { on(.post, pattern, handler) }
    @discardableResult public func put(_ pattern: String, _ handler: @escaping @Sendable (Request) throws -> Response) -> RouterGroup { on(.put, pattern, handler) }
    @discardableResult public func put(_ pattern: String, _ handler: @escaping @Sendable (Request) async throws -> Response) -> RouterGroup { on(.put, pattern, handler) }
    @discardableResult public func delete(_ pattern: String, _ handler: @escaping @Sendable (Request) throws -> Response) -> RouterGroup { on(.delete, pattern, handler) }
    @discardableResult public func delete(_ pattern: String, _ handler: @escaping @Sendable (Request) async throws -> Response) -> RouterGroup { on(.delete, pattern, handler) }
}
