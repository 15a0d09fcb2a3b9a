import Foundation
import Synchronization
import Testing
import WebServer

/// Stopping: requests in flight finish, new connections are refused, a handler that outlasts the
/// timeout is answered 503. Events are ordered by signals (a handler says it has started; the
/// test lets it finish), never by sleeping.
@Suite struct ShutdownTests {
    /// A handler's start, announced, and its end, held until the test releases it.
    final class HeldHandler: Sendable {
        private let entered = DispatchSemaphore(value: 0)
        private let released = DispatchSemaphore(value: 0)

        /// In the handler: says it has started, then waits to be released (at most `limit`: a
        /// safety net only, far beyond what a loaded machine needs, so that no test answers
        /// early by timing out).
        func enterAndWait(limit: Double = 120) {
            entered.signal()
            _ = released.wait(timeout: .now() + limit)
        }

        /// In the test: waits (on a thread of its own) until the handler has started.
        func waitUntilEntered() async {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread { [entered] in
                    _ = entered.wait(timeout: .now() + 120)
                    continuation.resume()
                }
            }
        }

        func release() { released.signal() }
    }

    /// Whether a connection to `port` is refused (ECONNREFUSED), retrying for up to 15 s while
    /// the server is still closing its listening socket (a real socket: polled, bounded).
    static func connectionIsRefused(_ server: TestServer) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            do {
                _ = try server.rawConnection()
            } catch let error as POSIXError where error.code == .ECONNREFUSED {
                return true
            } catch {
                return false
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test func requestInFlightFinishesAndNewConnectionsAreRefused() async throws {
        let held = HeldHandler()
        try await withServer({ router in
            router.get("/slow") { _ in
                held.enterAndWait()
                return .text("finished")
            }
        }) { server in
            // given a request in flight
            let client = server.client()
            let inFlight = Task { try await client.get("/slow") }
            await held.waitUntilEntered()
            // when the server shuts down
            let shutdown = Task { await server.server.shutdown() }
            // then a new connection is refused
            #expect(await Self.connectionIsRefused(server))
            // and the request in flight still gets its answer
            held.release()
            let response = try await inFlight.value
            #expect(response.status == 200)
            #expect(response.text == "finished")
            await shutdown.value
        }
    }

    @Test func synchronousRequestInFlightFinishesToo() async throws {
        let held = HeldHandler()
        try await withServer({ router in
            router.get("/busy") { _ in
                held.enterAndWait()
                return .text("done")
            }
        }) { server in
            let raw = try server.rawConnection()
            raw.send("GET /busy HTTP/1.1\r\nHost: localhost\r\n\r\n")
            await held.waitUntilEntered()
            let shutdown = Task { await server.server.shutdown() }
            #expect(await Self.connectionIsRefused(server))
            held.release()
            let reply = await raw.receive(until: "done")
            #expect(reply.hasPrefix("HTTP/1.1 200"))
            #expect(reply.contains("Connection: close"))
            await shutdown.value
        }
    }

    @Test func handlerOutlastingTheShutdownTimeoutIsAnswered503() async throws {
        let entered = AsyncStream<Void>.makeStream()
        let router = Router()
        router.get("/forever") { _ in
            entered.continuation.yield()
            try? await Task.sleep(for: .seconds(30))
            return .text("too late")
        }
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0, threadCount: 2)
        configuration.limits.connectionTimeout = .seconds(5)
        let server = HTTPServer(configuration: configuration, router: router)
        try server.start()
        let raw = try RawConnection(port: server.port)
        raw.send("GET /forever HTTP/1.1\r\nHost: localhost\r\n\r\n")
        var started = entered.stream.makeAsyncIterator()
        _ = await started.next()
        await server.shutdown(timeout: .milliseconds(300))
        let reply = await raw.receive(timeout: 15)
        #expect(reply.hasPrefix("HTTP/1.1 503"))
        #expect(reply.contains("shutting down"))
    }

    @Test func portZeroReportsTheChosenPortAndATakenPortIsAnActionableError() async throws {
        let first = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), router: Router())
        try first.start()
        #expect(first.port > 0)
        let second = HTTPServer(configuration: .init(host: "127.0.0.1", port: first.port), router: Router())
        #expect(throws: HTTPServer.Error.self) { try second.start() }
        #expect(throws: HTTPServer.Error.self) {
            try HTTPServer(configuration: .init(host: "not a host", port: 0), router: Router()).start()
        }
        await first.shutdown()
    }
}

@Suite struct TerminationSignalTests {
    @Test func terminationSignalReportsSIGTERM() async throws {
        // given SIGTERM ignored, so that a signal sent before the wait begins cannot end the tests
        signal(SIGTERM, SIG_IGN)
        let (listening, ready) = AsyncStream<Void>.makeStream()
        let waiting = Task { await HTTPServer.terminationSignal(listening: { ready.yield() }) }
        var iterator = listening.makeAsyncIterator()
        _ = await iterator.next()
        // when the process receives SIGTERM
        kill(getpid(), SIGTERM)
        // then the waiter returns it
        #expect(await waiting.value == SIGTERM)
    }
}
