import Testing
import WebServer

@Suite struct MarkdownTests {
    @Test func safeModeDropsRawHTMLAndJavaScriptLinks() {
        let html = Markdown().html(from: """
            Hello <script>alert(1)</script> world

            <div onclick="steal()">block</div>

            [click](javascript:alert(1)) and ![img](javascript:x)
            """)
        #expect(!html.contains("<script>"))
        #expect(!html.contains("onclick"))
        #expect(!html.contains("javascript:"))
        #expect(html.contains("<a href=\"\">click</a>"))
    }

    @Test func trustedModeKeepsRawHTML() {
        let html = Markdown(options: .trusted).html(from: "<aside>note</aside>\n\ntext")
        #expect(html.contains("<aside>note</aside>"))
    }

    @Test func headingsGetUniqueAnchors() {
        let html = Markdown().html(from: """
            # Totals per currency

            ## `EUR` & <b>USD</b>

            ## Totals per currency
            """)
        #expect(html.contains("<h1 id=\"totals-per-currency\">Totals per currency</h1>"))
        #expect(html.contains("<h2 id=\"eur-usd\"><code>EUR</code> &amp; <!-- raw HTML omitted -->USD<!-- raw HTML omitted --></h2>"))
        #expect(html.contains("<h2 id=\"totals-per-currency-1\">Totals per currency</h2>"))
    }

    @Test func anAnchorAHeadingAlreadyTookIsSkipped() {
        let html = Markdown().html(from: "# A 1\n\n## A\n\n## A\n\n## A\n\n#\n\n# ***\n")
        let ids = html.matches(of: /id="([^"]*)"/).map { String($0.1) }
        #expect(ids == ["a-1", "a", "a-2", "a-3", "section", "section-1"])
    }

    @Test func fiveThousandHeadingsRenderQuicklyWithUniqueAnchors() {
        let count = 5_000
        let document = String(repeating: "## Totals\n\nSome *text*.\n\n", count: count)
        var html = ""
        let elapsed = ContinuousClock().measure { html = Markdown().html(from: document) }
        // Linear work takes well under a second; the old tidying, quadratic, took about 50 s here.
        #expect(elapsed < .seconds(10))
        let ids = html.matches(of: /<h2 id="([^"]*)">Totals<\/h2>/).map { String($0.1) }
        #expect(ids.count == count)
        #expect(Set(ids).count == count)
        #expect(Array(ids.prefix(3)) == ["totals", "totals-1", "totals-2"])
        #expect(ids.last == "totals-\(count - 1)")
    }

    @Test func aNULInTheTextDoesNotEndTheDocument() {
        let html = Markdown().html(from: "# One\u{0}two\n\nafter")
        #expect(html == "<h1 id=\"one-two\">One\u{FFFD}two</h1>\n<p>after</p>\n")
    }

    @Test func markdownPageIsServedAsHTML() async throws {
        let markdown = Markdown()
        try await withServer({ router in
            router.get("/docs/:page") { request in
                .html(markdown.html(from: "# Page \(request.parameters["page"] ?? "")\n\nSome *text*."))
            }
        }) { server in
            let response = try await server.client().get("/docs/intro")
            #expect(response.text == "<h1 id=\"page-intro\">Page intro</h1>\n<p>Some <em>text</em>.</p>\n")
        }
    }

    @Test func aHeadingDoesNotTakeAnAnchorThePageReserved() {
        let html = Markdown(reservedAnchors: ["main"]).html(from: "## main\n\n## Main\n")
        #expect(html.contains("<h2 id=\"main-1\">main</h2>"), "\(html)")
        #expect(html.contains("<h2 id=\"main-2\">Main</h2>"), "\(html)")
        #expect(!html.contains("id=\"main\""))
    }
}
