import Foundation
import Logging
import WebServer

/// Starts a server with `router` on 127.0.0.1 and an ephemeral port, runs `body`, then shuts down.
/// Every test starts its own, so tests can run in parallel.
func withServer(
    configuration: HTTPServer.Configuration = HTTPServer.Configuration(),
    logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
    _ configure: (Router) throws -> Void,
    _ body: (TestServer) async throws -> Void
) async throws {
    let router = Router()
    try configure(router)
    var configuration = configuration
    configuration.host = "127.0.0.1"
    configuration.port = 0
    configuration.threadCount = min(configuration.threadCount, 2)
    let server = HTTPServer(configuration: configuration, router: router, logger: logger)
    try server.start()
    do {
        try await body(TestServer(server: server))
    } catch {
        await server.shutdown(timeout: .seconds(1))
        throw error
    }
    await server.shutdown(timeout: .seconds(2))
}

struct TestServer {
    let server: HTTPServer
    var port: Int { server.port }
    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// A new browser-like client with its own cookie jar.
    func client(followRedirects: Bool = false) -> TestClient {
        TestClient(base: "http://127.0.0.1:\(port)", followRedirects: followRedirects)
    }

    /// A raw TCP connection, for input no HTTP client would send.
    func rawConnection() throws -> RawConnection { try RawConnection(port: port) }
}
