import Foundation
import Testing
import WebServer

/// Data placed into markdown renders as the text it is: `Markdown.escape` and the templates'
/// MARKDOWN content type.
@Suite struct MarkdownEscapingTests {
    /// The HTML cmark makes of `- Name: VALUE`, as a list item's inner HTML.
    private func rendered(_ value: String, prefix: String = "- Name: ") -> String {
        let html = Markdown().html(from: prefix + Markdown.escape(value) + "\n")
        return html.replacingOccurrences(of: "<ul>\n<li>", with: "").replacingOccurrences(of: "</li>\n</ul>\n", with: "")
    }

    @Test(arguments: [
        ("*bold* _it_ **strong**", "Name: *bold* _it_ **strong**"),
        ("<script>alert(1)</script>", "Name: &lt;script&gt;alert(1)&lt;/script&gt;"),
        ("[x](javascript:alert(1))", "Name: [x](javascript:alert(1))"),
        ("![img](/x.png)", "Name: ![img](/x.png)"),
        ("`code` \\escaped", "Name: `code` \\escaped"),
        ("&amp; &lt; & <b>", "Name: &amp;amp; &amp;lt; &amp; &lt;b&gt;"),
        ("<https://example.com>", "Name: &lt;https://example.com&gt;"),
        ("~~~ | {x} ~", "Name: ~~~ | {x} ~"),
    ])
    func inlineMarkupStaysText(_ value: String, _ expected: String) {
        #expect(rendered(value) == expected)
    }

    @Test(arguments: [
        ("# Heading", "# Heading"),
        ("- item", "- item"),
        ("+ item", "+ item"),
        ("1. one", "1. one"),
        ("2) two", "2) two"),
        ("> quote", "&gt; quote"),
        ("===", "==="),
        ("---", "---"),
        ("   # indented", "# indented"),
        ("    four spaces", "four spaces"),
        ("\t\ttabs", "tabs"),
        ("  \t  - mixed", "- mixed"),
        ("1.\rone", "1. ⏎ one"),
        ("2)\nnext", "2) ⏎ next"),
        ("1.\u{0C}o", "1.\u{0C}o"),   // found by the fuzzer: cmark takes a form feed for a space
        ("3)\u{0B}v", "3)\u{0B}v"),
    ])
    func aValueAtTheStartOfALineOpensNoBlock(_ value: String, _ expected: String) {
        #expect(rendered(value, prefix: "- ") == expected)
        #expect(rendered(value, prefix: "").hasPrefix("<p>"))
    }

    @Test func lineBreaksStayOnTheValuesLine() {
        let html = rendered("first\n# second\r\n- third\r\n\n```\nfourth")
        #expect(html == "Name: first ⏎ # second ⏎ - third ⏎  ⏎ ``` ⏎ fourth")
    }

    @Test func ordinaryTextIsLeftReadable() {
        #expect(Markdown.escape("INV-2025-0001, 12.50 EUR (paid) at 09:30; a@b.example") ==
                "INV-2025-0001, 12.50 EUR (paid) at 09:30; a@b.example")
        #expect(Markdown.escape("1.5 kg") == "1.5 kg")
        #expect(Markdown.escape("1. kg") == "1\\. kg")
    }

    @Test func aMarkdownTemplateEscapesItsValuesForMarkdown() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("md-templates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "{{% CONTENT_TYPE: MARKDOWN}}\n# {{title}}\n\n- {{value}} and {{{raw}}}\n"
            .write(to: folder.appendingPathComponent("page.mustache"), atomically: true, encoding: .utf8)
        let pages = try TemplateRenderer(directory: folder.path)
        let markdown = try pages.render("page", ["title": "<b>T</b>", "value": "# *x*", "raw": "*kept*"], layout: nil)
        #expect(markdown == "# \\<b\\>T\\</b\\>\n\n- \\# \\*x\\* and *kept*\n")
        let html = Markdown().html(from: markdown)
        #expect(html.contains("&lt;b&gt;T&lt;/b&gt;</h1>"))
        #expect(html.contains("<li># *x* and <em>kept</em></li>"))
    }
}
