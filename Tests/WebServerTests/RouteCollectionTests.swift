import Foundation
import Synchronization
import Testing
import WebServer

/// Route groups with a typed request context and middleware, and per-route body limits
/// decided before a body is read.
@Suite struct RouteCollectionTests {
    struct Context: RequestContext {
        var user: String?
        var trail: [String] = []
        init(request: Request) {}
    }

    /// Finds the user named in the `X-User` header; refuses without one.
    struct RequireUser: RouterMiddleware {
        let seen: Counter
        func handle(_ request: Request, context: Context,
                    next: @Sendable (Request, Context) async throws -> Response) async throws -> Response {
            seen.increment()
            guard let user = request.headers[.init("X-User")!] else { return .text("who are you?", status: .forbidden) }
            var context = context
            context.user = user
            context.trail.append("user")
            return try await next(request, context)
        }
    }

    /// Notes its passage, and marks the response on its way out.
    struct Stamp: RouterMiddleware {
        let name: String
        func handle(_ request: Request, context: Context,
                    next: @Sendable (Request, Context) async throws -> Response) async throws -> Response {
            var context = context
            context.trail.append(name)
            var response = try await next(request, context)
            response.headers[.init("X-Stamp")!] = (response.headers[.init("X-Stamp")!].map { $0 + "," } ?? "") + name
            return response
        }
    }

    final class Counter: Sendable {
        private let value = Mutex(0)
        func increment() { value.withLock { $0 += 1 } }
        var count: Int { value.withLock { $0 } }
    }

    @Test func middlewareRunsInOrderFillsTheContextAndCanAnswerInstead() async throws {
        let seen = Counter()
        try await withServer({ router in
            let account = router.group("/account", context: Context.self)
                .adding(Stamp(name: "outer")).adding(RequireUser(seen: seen)).adding(Stamp(name: "inner"))
            account.get("/me") { _, context in .text("\(context.user ?? "-") via \(context.trail.joined(separator: ">"))") }
            router.get("/open") { _ in .text("open") }
        }) { server in
            let client = server.client()
            let me = try await client.get("/account/me", headers: ["X-User": "ada"])
            #expect(me.status == 200)
            #expect(me.text == "ada via outer>user>inner")
            #expect(me.header("X-Stamp") == "inner,outer")       // on the way out, inner first
            let refused = try await client.get("/account/me")
            #expect(refused.status == 403 && refused.text == "who are you?")
            #expect(refused.header("X-Stamp") == "outer")
            #expect(try await client.get("/open").text == "open")
            #expect(seen.count == 2)
        }
    }

    @Test func aRoutesBodyLimitRefusesALargerBodyBeforeItIsSent() async throws {
        try await withServer({ router in
            let forms = router.group("/forms", context: BasicRequestContext.self).limitingBodies(to: 1024)
            forms.post("/small") { request, _ in .text("\(request.body.count)") }
            forms.post("/upload", bodyLimit: 1 << 20) { request, _ in .text("\(request.body.count)") }
        }) { server in
            let small = try server.rawConnection()
            small.send("POST /forms/small HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5000\r\n\r\n")
            let reply = await small.receive(until: "bytes.")
            #expect(reply.hasPrefix("HTTP/1.1 413"))
            #expect(reply.contains("exceeds the limit of 1024 bytes"))
            let body = String(repeating: "a", count: 5000)
            let upload = try await server.client().send("POST", "/forms/upload", body: Data(body.utf8))
            #expect(upload.status == 200 && upload.text == "5000")
        }
    }

    /// Refuses, from the headers alone, a request without the `X-Key` header.
    struct RequireKey: RouterMiddleware {
        func handle(_ request: Request, context: Context,
                    next: @Sendable (Request, Context) async throws -> Response) async throws -> Response {
            try await next(request, context)
        }
        func admit(_ request: Request) -> Response? {
            request.headers[.init("X-Key")!] == "open" ? nil : .text("no key", status: .forbidden)
        }
    }

    @Test func middlewareRefusesFromTheHeadersBeforeTheBodyIsSent() async throws {
        let handled = Counter()
        try await withServer({ router in
            router.group("/upload", context: Context.self).limitingBodies(to: 64 << 20).adding(RequireKey())
                .post("") { request, _ in handled.increment(); return .text("\(request.body.count)") }
        }) { server in
            // thirty megabytes announced without the key: refused before a byte of the body is sent
            let raw = try server.rawConnection()
            _ = raw.send("POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 31457280\r\n\r\n")
            let reply = await raw.receive(until: "no key")
            #expect(reply.hasPrefix("HTTP/1.1 403"), "\(reply)")
            #expect(reply.contains("Connection: close"))
            // with the key, the body is read and handled
            let client = server.client()
            let accepted = try await client.send("POST", "/upload", headers: ["X-Key": "open"], body: Data("12345".utf8))
            #expect(accepted.text == "5")
            #expect(handled.count == 1)
        }
    }

    @Test func aBodyForNoRouteIsRefusedBeforeItIsSent() async throws {
        try await withServer({ router in
            router.post("/known") { request in .text("\(request.body.count)") }
        }) { server in
            // Thirty megabytes announced to an unknown path, and to a known path with the wrong method.
            for (line, status) in [("POST /unknown", "404"), ("PUT /known", "405")] {
                let raw = try server.rawConnection()
                raw.send("\(line) HTTP/1.1\r\nHost: localhost\r\nContent-Length: 31457280\r\n\r\n")
                let reply = await raw.receive(until: "\r\n\r\n")
                #expect(reply.hasPrefix("HTTP/1.1 \(status)"), "\(line): \(reply)")
                #expect(reply.contains("Connection: close"))
            }
        }
    }
}
