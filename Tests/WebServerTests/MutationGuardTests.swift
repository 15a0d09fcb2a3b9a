import Foundation
import Testing
import WebServer

/// Behaviours that a planted bug could break without any other test noticing (found by
/// mutation testing): routing edges, the body limit's boundary, repeated cookies and how
/// browsers encode forms.
@Suite struct MutationGuardTests {
    // MARK: Routing

    @Test func aSegmentThatIsOnlyTheSuffixDoesNotMatchAParameter() async throws {
        // given a route whose parameter carries a suffix
        try await withServer({ router in
            router.get("/clients/:pk.json") { request in .text("pk=[\(request.parameters["pk"] ?? "?")]") }
        }) { server in
            let client = server.client()
            // when the segment is the suffix alone, the parameter would be empty: no route
            let suffixOnly = try await client.get("/clients/.json")
            #expect(suffixOnly.status == 404)
            // and a segment with a value before the suffix still matches
            let withValue = try await client.get("/clients/7.json")
            #expect(withValue.text == "pk=[7]")
        }
    }

    // MARK: Body limit

    @Test func aBodyOfExactlyTheLimitIsAcceptedAndOneByteMoreIsRefused() async throws {
        var configuration = HTTPServer.Configuration()
        configuration.limits.maximumBodySize = 1024
        try await withServer(configuration: configuration, { router in
            router.post("/upload") { request in .text("got \(request.body.count)") }
        }) { server in
            let client = server.client()
            // given a body of exactly the limit (sent with its Content-Length)
            let fits = try await client.send("POST", "/upload", headers: ["Content-Type": "application/octet-stream"],
                                             body: Data(repeating: 0x61, count: 1024))
            // then it reaches the handler whole
            #expect(fits.status == 200)
            #expect(fits.text == "got 1024")
            // and one byte more is refused before it is read
            let raw = try server.rawConnection()
            raw.send("POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1025\r\n\r\n")
            #expect(await raw.receive(until: "\r\n\r\n").hasPrefix("HTTP/1.1 413"))
        }
    }

    // MARK: Cookies

    @Test func theFirstOfARepeatedCookieNameWins() async throws {
        // given a request carrying `sid` twice (a cookie set for a narrower path comes first)
        try await withServer({ router in
            router.get("/who") { request in .text(request.cookies["sid"] ?? "none") }
        }) { server in
            let response = try await server.client().get("/who", headers: ["Cookie": "sid=first; theme=dark; sid=second"])
            // then the handler sees the first
            #expect(response.text == "first")
        }
    }

    // MARK: Forms as browsers send them

    @Test func aPlusInAnUrlencodedFormIsASpaceAndAnEncodedPlusIsAPlus() async throws {
        // given a form as a browser encodes it: spaces as `+`, a plus as `%2B`
        try await withServer({ router in
            router.post("/clients") { request in
                let form = try request.form()
                return .text("[\(form["name"] ?? "")] [\(form["note"] ?? "")] [\(form["two words"] ?? "")]")
            }
        }) { server in
            let response = try await server.client().send(
                "POST", "/clients", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Data("name=Acme+Ltd&note=1%2B1+%3D+2&two+words=yes".utf8))
            // then the handler sees spaces and the plus
            #expect(response.status == 200)
            #expect(response.text == "[Acme Ltd] [1+1 = 2] [yes]")
        }
    }

    @Test func aPlusInTheQueryStringIsASpaceButInThePathIsAPlus() async throws {
        try await withServer({ router in
            router.get("/tags/:name") { request in
                .text("[\(request.parameters["name"] ?? "")] [\(request.query["q"] ?? "")]")
            }
        }) { server in
            let response = try await server.client().get("/tags/c++?q=red+car")
            #expect(response.text == "[c++] [red car]")
        }
    }
}
