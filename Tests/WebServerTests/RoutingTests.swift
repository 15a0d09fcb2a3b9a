import Testing
import WebServer

@Suite struct RoutingTests {
    @Test func routeParameterIsPassedToTheHandler() async throws {
        // given a route with a parameter
        try await withServer({ router in
            router.get("/clients/:pk") { request in .text("client \(request.parameters["pk"] ?? "?")") }
        }) { server in
            // when a client asks for one
            let response = try await server.client().get("/clients/42")
            // then the handler saw the parameter
            #expect(response.status == 200)
            #expect(response.text == "client 42")
        }
    }

    @Test func jsonSuffixRouteCapturesTheParameterWithoutTheSuffix() async throws {
        try await withServer({ router in
            router.get("/clients/:pk") { request in .text("html \(request.parameters["pk"] ?? "?")") }
            router.get("/clients/:pk.json") { request in
                try .json(["pk": request.parameters["pk"] ?? "?"])
            }
        }) { server in
            let client = server.client()
            let json = try await client.get("/clients/42.json")
            #expect(json.status == 200)
            #expect(json.header("Content-Type") == "application/json")
            #expect(json.text == #"{"pk":"42"}"#)
            let html = try await client.get("/clients/42")
            #expect(html.text == "html 42")
        }
    }

    @Test func anImmediateHandlerAnswersWhenItCanAndTheAsynchronousOneOtherwise() async throws {
        // given a route whose fast path answers only for kept pages
        try await withServer({ router in
            router.get("/pages/:name", immediate: { request in
                request.parameters["name"] == "kept" ? .text("immediate") : nil
            }) { request in
                await Task.yield()   // answers after a suspension
                return .text("async \(request.parameters["name"] ?? "?")")
            }
            router.get("/failing", immediate: { _ in throw HTTPError(.badRequest, "refused early") }) { _ in .text("never") }
        }) { server in
            let client = server.client()
            // then the fast path answers what it can, the task the rest, and a throw is the error's answer
            #expect(try await client.get("/pages/kept").text == "immediate")
            #expect(try await client.get("/pages/other").text == "async other")
            #expect(try await client.get("/failing").status == 400)
            let head = try await client.head("/pages/kept")
            #expect(head.status == 200)
            #expect(head.text.isEmpty)
        }
    }

    @Test func literalSegmentWinsOverParameter() async throws {
        try await withServer({ router in
            router.get("/clients/:pk") { _ in .text("show") }
            router.get("/clients/new") { _ in .text("new") }
        }) { server in
            let new = try await server.client().get("/clients/new")
            let show = try await server.client().get("/clients/7")
            #expect(new.text == "new")
            #expect(show.text == "show")
        }
    }

    @Test func unknownPathIsAnswered404() async throws {
        try await withServer({ router in
            router.get("/") { _ in .text("home") }
        }) { server in
            let response = try await server.client().get("/nothing/here")
            #expect(response.status == 404)
        }
    }

    @Test func wrongMethodIsAnswered405WithAllow() async throws {
        try await withServer({ router in
            router.get("/clients") { _ in .text("list") }
            router.post("/clients") { _ in .text("created") }
        }) { server in
            let response = try await server.client().send("DELETE", "/clients")
            #expect(response.status == 405)
            #expect(response.header("Allow") == "GET, HEAD, POST")
        }
    }

    @Test func headRequestIsAnsweredFromGetRouteWithoutBody() async throws {
        try await withServer({ router in
            router.get("/page") { _ in .html("<p>twelve bytes</p>") }
        }) { server in
            let raw = try server.rawConnection()
            raw.send("HEAD /page HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            let reply = await raw.receive()
            #expect(reply.hasPrefix("HTTP/1.1 200"))
            #expect(reply.contains("Content-Length: 19"))
            #expect(!reply.contains("<p>"))
        }
    }

    @Test func asyncHandlerAnswersAfterAwaiting() async throws {
        try await withServer({ router in
            router.get("/slow") { _ in
                await Task.yield()   // answers after a suspension
                return .text("waited")
            }
        }) { server in
            let response = try await server.client().get("/slow")
            #expect(response.status == 200)
            #expect(response.text == "waited")
        }
    }

    @Test func asyncHandlerAnswersWhenItBlocksTheServerThread() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.asyncHandlers = .blockThread
        try await withServer(configuration: configuration, { router in
            router.get("/slow") { _ in
                await Task.yield()   // answers after a suspension
                return .text("waited")
            }
            router.get("/fails") { _ in
                await Task.yield()
                throw HTTPError(.conflict, "Changed meanwhile.")
            }
        }) { server in
            let client = server.client()
            let response = try await client.get("/slow")
            #expect(response.text == "waited")
            let failure = try await client.get("/fails")
            #expect(failure.status == 409)
        }
    }

    @Test func groupPrefixesItsRoutes() async throws {
        try await withServer({ router in
            router.group("/api").group("v1").get("/ping") { _ in .text("pong") }
        }) { server in
            let response = try await server.client().get("/api/v1/ping")
            #expect(response.text == "pong")
        }
    }

    @Test func responsesCarrySecurityHeadersAndARequestID() async throws {
        try await withServer({ router in
            router.get("/") { _ in .html("<p>hi</p>") }
            router.get("/framable") { _ in
                var response = Response.html("<p>hi</p>")
                response.headers[.contentSecurityPolicy] = "frame-ancestors 'self'"
                return response
            }
        }) { server in
            let client = server.client()
            let response = try await client.get("/")
            #expect(response.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
            #expect(response.header("X-Content-Type-Options") == "nosniff")
            #expect(response.header("Referrer-Policy") == "same-origin")
            #expect(response.header("X-Request-ID")?.isEmpty == false)
            let overridden = try await client.get("/framable")
            #expect(overridden.header("Content-Security-Policy") == "frame-ancestors 'self'")
        }
    }
}
