import Foundation
import Testing
import WebServer

@Suite struct RequestTests {
    @Test func queryParametersAreDecodedAndRepeatedKeysKept() async throws {
        try await withServer({ router in
            router.get("/search") { request in
                .text("q=\(request.query["q"] ?? "") tags=\(request.query.values(for: "tag").joined(separator: ","))")
            }
        }) { server in
            let response = try await server.client().get("/search?q=caf%C3%A9+cr%C3%A8me&tag=a&tag=b%26c")
            #expect(response.text == "q=café crème tags=a,b&c")
        }
    }

    @Test func percentEncodedPathSegmentIsDecodedIntoTheParameter() async throws {
        try await withServer({ router in
            router.get("/clients/:name") { request in .text(request.parameters["name"] ?? "") }
        }) { server in
            let response = try await server.client().get("/clients/Caf%C3%A9%20Noir")
            #expect(response.text == "Café Noir")
        }
    }

    @Test func badPercentEncodingIsAnswered400WithTheReason() async throws {
        try await withServer({ router in
            router.get("/search") { _ in .text("never") }
        }) { server in
            let raw = try server.rawConnection()
            raw.send("GET /search?q=%G1 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            let reply = await raw.receive()
            #expect(reply.hasPrefix("HTTP/1.1 400"))
            #expect(reply.contains("invalid percent-encoding \"%G1\" in the query string"))
        }
    }

    @Test func invalidUTF8InThePathIsAnswered400WithTheReason() async throws {
        try await withServer({ router in
            router.get("/clients/:name") { _ in .text("never") }
        }) { server in
            let raw = try server.rawConnection()
            raw.send("GET /clients/%C3%28 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            let reply = await raw.receive()
            #expect(reply.hasPrefix("HTTP/1.1 400"))
            #expect(reply.contains("the path is not valid UTF-8"))
        }
    }

    @Test func urlencodedFormIsParsed() async throws {
        try await withServer({ router in
            router.post("/clients") { request in
                let form = try request.form()
                return .text("name=\(form["name"] ?? "") email=\(form["email"] ?? "")")
            }
        }) { server in
            let response = try await server.client().post("/clients", form: [("name", "Acme & Co"), ("email", "a@b.c")])
            #expect(response.status == 200)
            #expect(response.text == "name=Acme & Co email=a@b.c")
        }
    }

    @Test func invalidUTF8InAFormIsAnswered400() async throws {
        try await withServer({ router in
            router.post("/clients") { request in .text(try request.form()["name"] ?? "") }
        }) { server in
            let response = try await server.client().send(
                "POST", "/clients", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Data("name=%FF%FE".utf8))
            #expect(response.status == 400)
            #expect(response.text.contains("form body is not valid UTF-8"))
        }
    }

    @Test func multipartFormWithAFileIsParsed() async throws {
        try await withServer({ router in
            router.post("/import") { request in
                let form = try request.form()
                guard let file = form.file(named: "invoices") else { return .text("no file", status: .badRequest) }
                return .text("\(form["note"] ?? "")|\(file.filename)|\(file.contentType)|\(String(decoding: file.bytes, as: UTF8.self))")
            }
        }) { server in
            let boundary = "----testboundary42"
            let csv = "number,amount\r\n1,10.00\r\n2,--20.00\r\n"
            let body = """
                --\(boundary)\r
                Content-Disposition: form-data; name="note"\r
                \r
                March import\r
                --\(boundary)\r
                Content-Disposition: form-data; name="invoices"; filename="C:\\\\Users\\\\me\\\\march.csv"\r
                Content-Type: text/csv\r
                \r
                \(csv)\r
                --\(boundary)--\r

                """
            let response = try await server.client().send(
                "POST", "/import", headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"],
                body: Data(body.utf8))
            #expect(response.status == 200)
            #expect(response.text == "March import|march.csv|text/csv|\(csv)")
        }
    }

    @Test func multipartWithoutClosingBoundaryIsAnswered400() async throws {
        try await withServer({ router in
            router.post("/import") { request in .text("\(try request.form().files.count)") }
        }) { server in
            let response = try await server.client().send(
                "POST", "/import", headers: ["Content-Type": "multipart/form-data; boundary=xyz"],
                body: Data("--xyz\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue".utf8))
            #expect(response.status == 400)
            #expect(response.text.contains("closing boundary"))
        }
    }

    @Test func cookiesSentByTheClientReachTheHandler() async throws {
        try await withServer({ router in
            router.get("/who") { request in .text(request.cookies["sid"] ?? "none") }
        }) { server in
            let response = try await server.client().get("/who", headers: ["Cookie": "theme=dark; sid=abc123"])
            #expect(response.text == "abc123")
        }
    }

    @Test func setCookieCarriesItsAttributesAndTheBrowserSendsItBack() async throws {
        try await withServer({ router in
            router.post("/login") { _ in
                var response = Response.redirect(to: "/who")
                response.setCookie(Cookie(name: "sid", value: "s3cr3t", maxAge: 3600, secure: false))
                return response
            }
            router.get("/who") { request in .text(request.cookies["sid"] ?? "none") }
        }) { server in
            let client = server.client()
            let login = try await client.post("/login", form: [])
            #expect(login.status == 303)
            #expect(login.header("Location") == "/who")
            let cookie = try #require(login.header("Set-Cookie"))
            #expect(cookie == "sid=s3cr3t; Path=/; Max-Age=3600; HttpOnly; SameSite=Lax")
            let who = try await client.get("/who")
            #expect(who.text == "s3cr3t")
        }
    }

    @Test func postRedirectGetIsFollowedByABrowser() async throws {
        try await withServer({ router in
            router.post("/clients") { _ in .redirect(to: "/clients/1") }
            router.get("/clients/:pk") { request in .text("client \(request.parameters["pk"] ?? "")") }
        }) { server in
            let response = try await server.client(followRedirects: true).post("/clients", form: [("name", "x")])
            #expect(response.status == 200)
            #expect(response.text == "client 1")
        }
    }

    @Test func jsonBodyIsDecodedAndAMismatchIsAnswered400() async throws {
        struct Invoice: Codable { var number: Int }
        try await withServer({ router in
            router.put("/invoices") { request in .text("\(try request.decode(json: Invoice.self).number)") }
        }) { server in
            let client = server.client()
            let good = try await client.send("PUT", "/invoices", headers: ["Content-Type": "application/json"],
                                             body: Data(#"{"number": 7}"#.utf8))
            #expect(good.text == "7")
            let bad = try await client.send("PUT", "/invoices", headers: ["Content-Type": "application/json"],
                                            body: Data(#"{"numero": 7}"#.utf8))
            #expect(bad.status == 400)
            #expect(bad.text.contains("missing key \"number\""))
        }
    }

    @Test func leadingFormFieldsReadOnlyTheFirstPartsOfAMultipartBody() throws {
        let body = "--b\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\nT\r\n"
            + "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n\r\nbroken, no end"
        let request = Request(method: .post, path: "/import", headers: [.contentType: "multipart/form-data; boundary=b"],
                              body: Array(body.utf8))
        let leading = try request.leadingFormFields(1)
        #expect(leading["csrf"] == "T")
        #expect(leading.files.isEmpty)
        #expect(throws: HTTPError.self) { try request.form() }
        let encoded = Request(method: .post, path: "/f", headers: [.contentType: "application/x-www-form-urlencoded"],
                              body: Array("a=1&csrf=T".utf8))
        #expect(try encoded.leadingFormFields(1)["csrf"] == "T", "a small urlencoded form is read whole")
    }
}
