import Foundation
import Mustache
import Synchronization
import Testing
import WebServer

@Suite struct TemplateTests {
    static let templates = [
        "layout.mustache": "<html><head><title>{{title}}</title></head><body>{{> partials/nav}}{{{content}}}</body></html>",
        "partials/nav.mustache": "<nav>{{site}}</nav>",
        "clients/show.mustache": "<h1>{{client.name}}</h1><p>{{note}}</p>",
    ]

    struct Page {
        struct Client { var name: String }
        var title: String
        var site: String
        var client: Client
        var note: String
    }

    @Test func valuesAreEscapedInsideTheLayoutWithPartials() async throws {
        let directory = try makeDirectory(Self.templates)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pages = try TemplateRenderer(directory: directory.path)
        try await withServer({ router in
            router.get("/clients/:pk") { _ in
                let page = Page(title: "Acme & Co", site: "Invoices",
                                client: .init(name: "<script>alert('x')</script>"), note: "\"quoted\"")
                return try pages.response("clients/show", page)
            }
        }) { server in
            let response = try await server.client().get("/clients/1")
            #expect(response.header("Content-Type") == "text/html; charset=utf-8")
            #expect(response.text == "<html><head><title>Acme &amp; Co</title></head><body><nav>Invoices</nav>"
                    + "<h1>&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;</h1><p>&quot;quoted&quot;</p></body></html>")
            #expect(!response.text.contains("<script>"))
        }
    }

    @Test func theRenderersEscapingIsTheLibrarysForEveryKindOfText() throws {
        // Given texts with and without the five characters, among multi-byte ones
        let texts = ["", "plain", "Café Été", "1 < 2 > 0", "A&B", "say \"hi\"", "it's", "<&>\"'", "&amp;",
                     "日本語 <b>", "👩‍👩‍👧 & 🇯🇵", "tab\tnew\nline", String(repeating: "x<", count: 200)]
        let directory = try makeDirectory(["value.mustache": "{{value}}|{{{value}}}"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let pages = try TemplateRenderer(directory: directory.path)
        let library = try MustacheTemplate(string: "{{value}}")
        for text in texts {
            // Then the renderer escapes as swift-mustache's own HTML escaping does, and
            // leaves triple-brace values alone
            let expected = library.render(["value": text])
            #expect(HTMLContentType.escape(text) == expected, "\(text.debugDescription)")
            #expect(try pages.render("value", ["value": text], layout: nil) == expected + "|" + text)
        }
    }

    @Test func aFragmentIsRenderedOncePerKeyExceptInDevelopment() throws {
        let directory = try makeDirectory(["options.mustache": "{{#options}}<option{{#on}} selected{{/on}}>{{name}}</option>{{/options}}"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = Mutex(0)
        func options(_ selected: String) -> [String: Any] {
            made.withLock { $0 += 1 }
            return ["options": ["a", "b"].map { ["name": $0, "on": $0 == selected] as [String: Any] }]
        }
        let pages = try TemplateRenderer(directory: directory.path)
        #expect(try pages.fragment("options", options("a"), key: "a") == "<option selected>a</option><option>b</option>")
        #expect(try pages.fragment("options", options("a"), key: "a") == "<option selected>a</option><option>b</option>")
        #expect(try pages.fragment("options", options("b"), key: "b") == "<option>a</option><option selected>b</option>")
        #expect(made.withLock { $0 } == 2)
        let development = try TemplateRenderer(directory: directory.path, development: true)
        _ = try development.fragment("options", options("a"), key: "a")
        _ = try development.fragment("options", options("a"), key: "a")
        #expect(made.withLock { $0 } == 4)
    }

    @Test func structsOptionalsArraysAndFlagsRenderLikeMustacheExpects() throws {
        struct Money: CustomStringConvertible {
            var cents: Int
            var description: String { "\(cents / 100).\(cents % 100) EUR" }
        }
        struct Line { var label: String; var amount: Money }
        final class Customer { let name = "Ada"; let email: String? = nil }
        struct Invoice { var number: Int; var paid: Bool; var note: String?; var lines: [Line]; var customer: Customer
                         var extra: [String: Int] }
        let directory = try makeDirectory([
            "invoice.mustache": "#{{number}} {{customer.name}}{{#customer.email}} <{{.}}>{{/customer.email}}"
                + "{{#paid}} paid{{/paid}}{{^paid}} due{{/paid}}{{#note}} ({{.}}){{/note}}:"
                + "{{#lines}} {{label}}={{amount}}/{{amount.cents}}{{/lines}} x={{extra.x}}",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let pages = try TemplateRenderer(directory: directory.path)
        let invoice = Invoice(number: 7, paid: false, note: nil,
                              lines: [Line(label: "a<b", amount: Money(cents: 150)), Line(label: "c", amount: Money(cents: 275))],
                              customer: Customer(), extra: ["x": 3])
        let rendered = try pages.render("invoice", invoice, layout: nil)
        #expect(rendered == "#7 Ada due: a&lt;b=1.50 EUR/150 c=2.75 EUR/275 x=3")
    }

    @Test func developmentModeRereadsTemplatesFromDisk() throws {
        let directory = try makeDirectory(["hello.mustache": "Hello {{name}}"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let development = try TemplateRenderer(directory: directory.path, development: true)
        let production = try TemplateRenderer(directory: directory.path)
        #expect(try development.render("hello", ["name": "Ada"], layout: nil) == "Hello Ada")
        try Data("Goodbye {{name}}".utf8).write(to: directory.appendingPathComponent("hello.mustache"))
        #expect(try development.render("hello", ["name": "Ada"], layout: nil) == "Goodbye Ada")
        #expect(try production.render("hello", ["name": "Ada"], layout: nil) == "Hello Ada")
    }

    @Test func missingTemplateIsANamedError() throws {
        let directory = try makeDirectory(["hello.mustache": "hi"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let pages = try TemplateRenderer(directory: directory.path)
        #expect(throws: TemplateRenderer.Error.self) { try pages.render("nope", [String: String]()) }
        #expect(throws: TemplateRenderer.Error.self) { try TemplateRenderer(directory: "/no/such/templates") }
    }
}
