import Foundation
import TestSupport
import Testing
import WebServer

@Suite struct RobustnessTests {
    struct DatabaseExploded: Error, CustomStringConvertible {
        var description: String { "password=hunter2 at /var/db/secret.sqlite" }
    }

    @Test func handlerErrorBecomes500WithoutInternalsAndTheServerGoesOn() async throws {
        let (logger, log) = CapturingLogHandler.logger()
        try await withServer(logger: logger, { router in
            router.get("/boom") { _ in throw DatabaseExploded() }
            router.get("/async-boom") { _ in
                await Task.yield()   // throws after a suspension
                throw DatabaseExploded()
            }
            router.get("/ok") { _ in .text("still here") }
        }) { server in
            let client = server.client()
            for path in ["/boom", "/async-boom"] {
                // when a handler throws
                let response = try await client.get(path)
                // then the client gets a 500 page that reveals nothing
                #expect(response.status == 500)
                #expect(!response.text.contains("hunter2") && !response.text.contains("secret.sqlite"))
                // and the request ID ties the page to the log line holding the error
                let id = try #require(response.header("X-Request-ID"))
                #expect(response.text.contains(id))
                #expect(log.all.contains { $0.hasPrefix("error") && $0.contains("hunter2") && $0.contains("request_id=\(id)") })
            }
            let after = try await client.get("/ok")
            #expect(after.text == "still here")
        }
    }

    @Test func httpErrorThrownByAHandlerKeepsItsStatusAndMessage() async throws {
        try await withServer({ router in
            router.get("/clients/:pk") { request in
                let pk = try request.parameters.require("pk", as: Int.self)
                throw HTTPError(.notFound, "No client \(pk).")
            }
        }) { server in
            let missing = try await server.client().get("/clients/9")
            #expect(missing.status == 404)
            #expect(missing.text == "No client 9.\n")
            let malformed = try await server.client().get("/clients/abc")
            #expect(malformed.status == 404)
        }
    }

    @Test func accessLogHasOneLinePerRequest() async throws {
        let (logger, log) = CapturingLogHandler.logger()
        try await withServer(logger: logger, { router in
            router.get("/hello") { _ in .text("hello") }
        }) { server in
            _ = try await server.client().get("/hello?x=1")
            let line = try #require(log.all.first { $0.contains("GET /hello") })
            #expect(line.hasPrefix("info GET /hello 200 5B "))
            #expect(line.contains("ms request_id="))
        }
    }

    @Test func garbageOnTheSocketDoesNotHurtTheServer() async throws {
        try await withServer({ router in
            router.get("/") { _ in .text("alive") }
        }) { server in
            var generator = SystemRandomNumberGenerator()
            let garbage: [[UInt8]] = [
                (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) },
                Array("\u{0}\u{1}\u{2} / HTTP/1.1\r\n\r\n".utf8),
                Array("GET / HTTP/9.9\r\n\r\n".utf8),
                Array("GET /\r\n\r\n".utf8),
                Array((String(repeating: "A", count: 10000) + " / HTTP/1.1\r\n\r\n").utf8),
                Array("GET / HTTP/1.1\r\nHost: localhost\r\nContent-Length: -5\r\n\r\n".utf8),
                Array("GET / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 99999999999999999999999\r\n\r\n".utf8),
                Array("POST / HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\nxx\r\n".utf8),
                Array("GET http://evil.example/ HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8),
                Array("GET / HTTP/1.1\r\nBad Header Without Colon\r\n\r\n".utf8),
                Array("GET /%ZZ%?%=%&&=&%E2%82 HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8),
                Array("GET /a%00b HTTP/1.1\r\nHost: localhost\r\nCookie: ;;=;a=\"\r\n\r\n".utf8),
            ]
            for bytes in garbage {
                let raw = try server.rawConnection()
                raw.send(bytes)
                let reply = await raw.receive(timeout: 2)
                #expect(reply.isEmpty || reply.hasPrefix("HTTP/1."), "\(reply.prefix(40))")
            }
            let response = try await server.client().get("/")
            #expect(response.text == "alive")
        }
    }

    @Test func twoHundredConcurrentClientsAreAllAnswered() async throws {
        try await withServer({ router in
            router.get("/sync/:n") { request in .text("sync \(request.parameters["n"] ?? "")") }
            router.get("/async/:n") { request in
                await Task.yield()
                return .text("async \(request.parameters["n"] ?? "")")
            }
        }) { server in
            let answers = try await withThrowingTaskGroup(of: Bool.self) { group in
                for n in 0..<200 {
                    group.addTask {
                        let kind = n.isMultiple(of: 2) ? "sync" : "async"
                        let response = try await server.client().get("/\(kind)/\(n)")
                        return response.status == 200 && response.text == "\(kind) \(n)"
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(answers.count == 200)
            #expect(answers.allSatisfy { $0 })
        }
    }
}
