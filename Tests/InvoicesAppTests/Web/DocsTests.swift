import Foundation
import Testing
@testable import InvoicesApp

/// The documentation pages: markdown templates with live figures, rendered through cmark.
@Suite struct DocsTests {
    static let pages = ["nested-contexts", "threading", "object-ids", "merge-policies", "coordinators"]

    @Test func theIndexListsEveryPageAndTheLayoutLinksToDocsAndInspector() async throws {
        try await withDashboard { app in
            let index = try await app.visitor().get("/docs")
            #expect(index.status == 200)
            for page in Self.pages { #expect(index.text.contains("href=\"/docs/\(page)\"")) }
            #expect(index.text.contains("<a href=\"/docs\" aria-current=\"page\">Docs</a>"))
            #expect(index.text.contains("<a href=\"/contexts\">Inspector</a>"))
            let clients = try await app.visitor().get("/clients")
            #expect(clients.text.contains("<a href=\"/contexts\">Inspector</a>"))
        }
    }

    @Test func everyPageRendersItsMarkdownAndLinksIntoTheInspector() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            for page in Self.pages {
                let html = try await visitor.get("/docs/\(page)")
                #expect(html.status == 200, "\(page)")
                #expect(html.text.contains("<h1 id="), "\(page)")
                #expect(html.text.contains("<h2 id=\"in-this-dashboard\">In this dashboard</h2>"), "\(page)")
                #expect(html.text.contains("href=\"/contexts"), "\(page)")
                #expect(!html.text.contains("{{"), "\(page)")
                let markdown = try await visitor.get("/docs/\(page).md")
                #expect(markdown.status == 200)
                #expect(markdown.header("Content-Type")?.hasPrefix("text/markdown") == true)
                #expect(markdown.text.hasPrefix("# "))
            }
        }
    }

    @Test func thePagesQuoteLiveFiguresOfTheRunningServer() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let before = try await visitor.get("/docs/nested-contexts").text
            #expect(before.contains("this server has <strong>0</strong> scratchpads open"))
            let (path, csrf) = try await visitor.editClient("Acme Corp", applying: [("city", "Graz")])
            let open = try await visitor.get("/docs/nested-contexts").text
            #expect(open.contains("this server has <strong>1</strong> scratchpads open, holding 1 unsaved changes"))
            #expect(try await visitor.post(path, [("csrf", csrf), ("action", "cancel")]).status == 303)
            let after = try await visitor.get("/docs/nested-contexts").text
            #expect(after.contains("this server has <strong>0</strong> scratchpads open"))
            #expect(after.contains("Dropped so far: 1"))
            let coordinators = try await visitor.get("/docs/coordinators").text
            let token = try app.stack.coordinator.currentHistoryToken().transactionNumber
            #expect(coordinators.contains("latest history token: <strong>transaction \(token)</strong>"))
            #expect(coordinators.contains("Remote changes seen since it started: <strong>0</strong>"))
            let ids = try await visitor.get("/docs/object-ids").text
            #expect(ids.contains(app.stack.coordinator.storeIdentifier?.uuidString ?? "missing"))
        }
    }

    @Test func anUnknownPageIs404() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let unknown = try await visitor.get("/docs/nope")
            #expect(unknown.status == 404)
            #expect(unknown.text.contains("There is no documentation page"))
            for path in ["/docs/nope.md", "/docs/article", "/docs/..%2Flayout"] {
                let response = try await visitor.get(path)
                #expect(response.status == 404, "\(path)")
            }
        }
    }
}
