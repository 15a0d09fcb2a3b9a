import Foundation
import Testing
@testable import InvoicesApp

/// What the inspector never does: interpret data as markup, or show other visitors' unsaved
/// values to someone without the token when the server is reachable from other machines.
@Suite struct InspectorSafetyTests {
    static let hostile = "<script>alert(1)</script> **bold** [x](javascript:alert(1)) `code` & &amp; <img src=x>"

    @Test func markdownAndHTMLInAValueAreShownAsTextEverywhere() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let pk = try await clientKey("Acme Corp", visitor)
            _ = try await visitor.editClient("Acme Corp", applying: [("name", Self.hostile), ("city", "# Heading\n- item\n1. one")])

            // JSON: the exact value, properly escaped.
            let json = try await visitor.get("/contexts.json")
            #expect(json.header("Content-Type") == "application/json")
            let snapshot = try jsonDecoder().decode(StackSnapshot.self, from: json.body)
            let change = try #require(snapshot.pendingChanges(of: "Client/p\(pk)").first?.change)
            #expect(change.properties.first { $0.name == "name" }?.pending == Self.hostile)
            #expect(!json.text.contains("\"# Heading\n"))
            #expect(json.text.contains(#"# Heading\n- item\n1. one"#))

            // Markdown: escaped, so it renders as the text it is.
            let markdown = try await visitor.get("/contexts.md").text
            #expect(markdown.contains(#"\<script\>alert(1)\</script\> \*\*bold\*\* \[x\](javascript:alert(1)) \`code\` \& \&amp; \<img src=x\>"#))
            #expect(markdown.contains(##"\# Heading ⏎ - item ⏎ 1. one"##))

            // HTML: shown as text, nothing interpreted.
            for page in [try await visitor.get("/contexts").text,
                         try await visitor.get(change.path).text] {
                #expect(!page.contains("<script>alert(1)</script>"))
                #expect(!page.contains("<img src=x>"))
                #expect(!page.contains("href=\"javascript"))
                #expect(!page.contains("<strong>bold</strong>"))
                #expect(!page.contains("<code>code</code>"))
                #expect(!page.contains("<h1 id=\"heading\">"))
            }
            let html = try await visitor.get("/contexts").text
            #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; **bold** [x](javascript:alert(1)) `code` &amp; &amp;amp; &lt;img src=x&gt;"))
            #expect(html.contains("# Heading ⏎ - item ⏎ 1. one"))
            let object = try await visitor.get(change.path).text
            #expect(object.contains("&lt;script&gt;alert(1)&lt;/script&gt; **bold**"))
        }
    }

    @Test func offLoopbackTheInspectorNeedsItsToken() async throws {
        try await withExposedDashboard(token: "s3cret-token") { port in
            let stranger = Visitor(port: port)
            for path in ["/contexts", "/contexts.md", "/contexts.json", "/contexts/events", "/contexts/main/Client/1"] {
                #expect(try await stranger.get(path).status == 403, "\(path) without the token")
            }
            let refused = try await stranger.get("/contexts")
            #expect(refused.text.contains("needs its token"))
            #expect(try await stranger.get("/contexts.json?token=wrong").status == 403)
            #expect(try await stranger.send("GET", "/contexts.json", headers: ["X-Inspector-Token": "nope"]).status == 403)

            // The token in the query opens the page and is remembered in a cookie.
            let friend = Visitor(port: port)
            let opened = try await friend.get("/contexts?token=s3cret-token")
            #expect(opened.status == 200)
            #expect(opened.header("Set-Cookie")?.hasPrefix("inspector_token=") == true)
            #expect(opened.header("Set-Cookie")?.contains("HttpOnly") == true)
            #expect(try await friend.get("/contexts.json").status == 200)
            #expect(try await friend.get("/contexts.md").status == 200)
            let events = try RawHTTPClient(port: port, path: "/contexts/events?token=s3cret-token")
            #expect(await events.read(until: "event: hello", timeout: 5).hasPrefix("HTTP/1.1 200"))

            // A header or a bearer token works too.
            #expect(try await Visitor(port: port).send("GET", "/contexts.json",
                                                       headers: ["X-Inspector-Token": "s3cret-token"]).status == 200)
            #expect(try await Visitor(port: port).send("GET", "/contexts.json",
                                                       headers: ["Authorization": "Bearer s3cret-token"]).status == 200)
            // The rest of the site, the documentation included, stays open.
            #expect(try await stranger.get("/docs").status == 200)
            #expect(try await stranger.get("/clients").status == 200)
        }
    }

    @Test func offLoopbackWithoutATokenTheInspectorStaysClosed() async throws {
        try await withExposedDashboard(token: nil) { port in
            let visitor = Visitor(port: port)
            let page = try await visitor.get("/contexts?token=anything")
            #expect(page.status == 403)
            #expect(page.text.contains("--inspector-token"))
            #expect(try await visitor.get("/contexts.json").status == 403)
        }
    }

    @Test func onLoopbackNoTokenIsNeeded() async throws {
        #expect(InspectorAccess.isLoopback("127.0.0.1"))
        #expect(InspectorAccess.isLoopback("127.1.2.3"))
        #expect(InspectorAccess.isLoopback("::1"))
        #expect(InspectorAccess.isLoopback("[::1]"))
        #expect(InspectorAccess.isLoopback("localhost"))
        #expect(!InspectorAccess.isLoopback("0.0.0.0"))
        #expect(!InspectorAccess.isLoopback("::"))
        #expect(!InspectorAccess.isLoopback("192.168.1.20"))
        try await withDashboard { app in
            let page = try await app.visitor().get("/contexts")
            #expect(page.status == 200)
        }
    }

    /// Runs the dashboard on 0.0.0.0 (every interface, so not loopback) and an ephemeral port.
    private func withExposedDashboard(token: String?, _ body: (Int) async throws -> Void) async throws {
        let stack = try InvoicesStack(storeURL: TestFiles.database())
        let server = try DashboardServer(stack: stack, host: "0.0.0.0", port: 0, resources: repositoryResources,
                                         inspectorToken: token)
        do {
            try await body(server.port)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
