import Foundation
import Testing
import WebServer

@Suite struct LimitTests {
    static func configuration(_ adjust: (inout HTTPServer.Limits) -> Void) -> HTTPServer.Configuration {
        var configuration = HTTPServer.Configuration()
        adjust(&configuration.limits)
        return configuration
    }

    @Test func bodyOverTheLimitByContentLengthIsAnswered413BeforeItIsSent() async throws {
        try await withServer(configuration: Self.configuration { $0.maximumBodySize = 1024 }, { router in
            router.post("/upload") { request in .text("\(request.body.count)") }
        }) { server in
            // given a client announcing 2 MB
            let raw = try server.rawConnection()
            raw.send("POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2000000\r\n\r\n")
            // then the answer comes without any of the body having been sent
            let reply = await raw.receive(until: "\r\n\r\n")
            #expect(reply.hasPrefix("HTTP/1.1 413"))
            #expect(reply.contains("Connection: close"))
        }
    }

    @Test func chunkedBodyOverTheLimitIsDrainedThenAnswered413() async throws {
        try await withServer(configuration: Self.configuration { $0.maximumBodySize = 1024 }, { router in
            router.post("/upload") { request in .text("\(request.body.count)") }
        }) { server in
            let raw = try server.rawConnection()
            raw.send("POST /upload HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = String(repeating: "a", count: 1000)
            for _ in 0..<3 { raw.send("3e8\r\n\(chunk)\r\n") }
            raw.send("0\r\n\r\n")
            let reply = await raw.receive(until: "bytes.")
            #expect(reply.hasPrefix("HTTP/1.1 413"))
            #expect(reply.contains("exceeds the limit of 1024 bytes"))
        }
    }

    @Test func chunkedBodyWithinTheLimitIsReceivedWhole() async throws {
        try await withServer(configuration: Self.configuration { $0.maximumBodySize = 4096 }, { router in
            router.post("/upload") { request in .text("got \(request.body.count)") }
        }) { server in
            let raw = try server.rawConnection()
            raw.send("POST /upload HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
            raw.send("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
            let reply = await raw.receive()
            #expect(reply.hasPrefix("HTTP/1.1 200"))
            #expect(reply.hasSuffix("got 11"))
        }
    }

    @Test func headersThatDoNotFitTheConnectionMemoryAreAnswered431() async throws {
        try await withServer(configuration: Self.configuration { $0.connectionMemory = 16 * 1024 }, { router in
            router.get("/") { _ in .text("home") }
        }) { server in
            // given headers of 12 KB, within 16 KB of connection memory: served
            let fits = try server.rawConnection()
            fits.send("GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: \(String(repeating: "x", count: 12 * 1024))\r\n\r\n")
            #expect(await fits.receive(until: "home").hasPrefix("HTTP/1.1 200"))
            // when they are 20 KB
            let raw = try server.rawConnection()
            raw.send("GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: \(String(repeating: "x", count: 20 * 1024))\r\n\r\n")
            let reply = await raw.receive(until: "\r\n\r\n")
            // then libmicrohttpd answers 431 itself
            #expect(reply.hasPrefix("HTTP/1.1 431"))
        }
    }

    @Test func connectionPastTheLimitIsAnswered503WithRetryAfter() async throws {
        try await withServer(configuration: Self.configuration { $0.maximumConnections = 2 }, { router in
            router.get("/") { _ in .text("home") }
        }) { server in
            // given two clients holding keep-alive connections
            let first = try server.rawConnection()
            let second = try server.rawConnection()
            for connection in [first, second] {
                connection.send("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
                #expect(await connection.receive(until: "home").hasPrefix("HTTP/1.1 200"))
            }
            // when a third one asks
            let third = try server.rawConnection()
            third.send("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let reply = await third.receive()
            // then it is told to come back, and the connection is closed
            #expect(reply.hasPrefix("HTTP/1.1 503"))
            #expect(reply.contains("Retry-After: 1"))
            #expect(reply.contains("maximum of 2 connections"))
            // and once a connection is freed, a newcomer is served
            withExtendedLifetime(first) {}
            _ = consume first
            // (libmicrohttpd notices the close on its next poll: on a loaded machine, with the
            // whole suite running beside it, that has taken over 3 s, so the newcomer retries
            // for up to 15 s.)
            var fourth = try await server.client().get("/")
            let deadline = ContinuousClock.now + .seconds(15)
            while fourth.status == 503 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                fourth = try await server.client().get("/")
            }
            #expect(fourth.status == 200)
        }
    }

    @Test func slowClientIsDisconnectedAfterTheTimeout() async throws {
        try await withServer(configuration: Self.configuration { $0.connectionTimeout = .seconds(1) }, { router in
            router.get("/") { _ in .text("home") }
        }) { server in
            // given a client that sends half a request and then nothing
            let raw = try server.rawConnection()
            raw.send("GET / HTTP/1.1\r\nHost: localhost\r\nX-Trickle: ")
            // then the server closes the connection without an answer. The bound is loose on
            // purpose: on a loaded 2-core CI machine the test's own tasks can wait seconds for
            // a thread; a server without the timeout never closes at all.
            #expect(await raw.waitForClose(timeout: 30))
        }
    }
}
