import Foundation
import Testing
import WebServer

@Suite struct ShutdownTests {
    @Test func requestInFlightFinishesAndNewConnectionsAreRefused() async throws {
        try await withServer({ router in
            router.get("/slow") { _ in
                try await Task.sleep(for: .milliseconds(600))
                return .text("finished")
            }
        }) { server in
            // given a request in flight
            let client = server.client()
            let inFlight = Task { try await client.get("/slow") }
            try await Task.sleep(for: .milliseconds(200))
            // when the server shuts down
            let shutdown = Task { await server.server.shutdown() }
            try await Task.sleep(for: .milliseconds(100))
            // then a new connection is refused
            #expect(throws: (any Error).self) { try server.rawConnection() }
            // and the request in flight still gets its answer
            let response = try await inFlight.value
            #expect(response.status == 200)
            #expect(response.text == "finished")
            await shutdown.value
        }
    }

    @Test func synchronousRequestInFlightFinishesToo() async throws {
        try await withServer({ router in
            router.get("/busy") { _ in
                Thread.sleep(forTimeInterval: 0.5)
                return .text("done")
            }
        }) { server in
            let raw = try server.rawConnection()
            raw.send("GET /busy HTTP/1.1\r\nHost: x\r\n\r\n")
            try await Task.sleep(for: .milliseconds(150))
            let shutdown = Task { await server.server.shutdown() }
            let reply = await raw.receive(until: "done")
            #expect(reply.hasPrefix("HTTP/1.1 200"))
            #expect(reply.contains("Connection: close") || reply.contains("done"))
            await shutdown.value
        }
    }

    @Test func handlerOutlastingTheShutdownTimeoutIsAnswered503() async throws {
        let router = Router()
        router.get("/forever") { _ in
            try? await Task.sleep(for: .seconds(30))
            return .text("too late")
        }
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0, threadCount: 2)
        configuration.limits.connectionTimeout = .seconds(5)
        let server = HTTPServer(configuration: configuration, router: router)
        try server.start()
        let raw = try RawConnection(port: server.port)
        raw.send("GET /forever HTTP/1.1\r\nHost: x\r\n\r\n")
        try await Task.sleep(for: .milliseconds(100))
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
        let waiting = Task { await HTTPServer.terminationSignal() }
        try await Task.sleep(for: .milliseconds(200))
        // when the process receives SIGTERM
        kill(getpid(), SIGTERM)
        // then the waiter returns it
        let received = try await withThrowingTaskGroup(of: Int32?.self) { group in
            group.addTask { await waiting.value }
            group.addTask {
                try await Task.sleep(for: .seconds(5))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        #expect(received == SIGTERM)
    }
}
