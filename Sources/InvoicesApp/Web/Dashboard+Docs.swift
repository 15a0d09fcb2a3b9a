import Foundation
import HTTPTypes
import WebServer

/// The documentation: `/docs` and `/docs/{page}` (and `/docs/{page}.md`), markdown templates
/// in `Templates/docs/` filled with live figures of the running server (``LiveFigures``), then
/// rendered through cmark into the site's layout. Unknown pages answer 404.
extension Dashboard {
    /// A page of the documentation.
    struct DocsPage: Sendable {
        /// The URL's last segment and the template's name under `docs/`.
        let slug: String
        let title: String
        let summary: String
    }

    /// The pages, in reading order.
    static let docsPages: [DocsPage] = [
        DocsPage(slug: "nested-contexts", title: "Nested contexts",
                 summary: "Scratchpads, deferred saves, and when not to nest."),
        DocsPage(slug: "threading", title: "Threading",
                 summary: "What crosses queues (object IDs, change sets, snapshots) and what never does (objects)."),
        DocsPage(slug: "object-ids", title: "Object IDs",
                 summary: "Temporary and permanent IDs, URIs, and where each may be used."),
        DocsPage(slug: "merge-policies", title: "Merge policies and conflicts",
                 summary: "What happens when two contexts change the same property, and how a save decides."),
        DocsPage(slug: "coordinators", title: "Several coordinators and processes",
                 summary: "Two stacks on one SQLite file: what they share, what they don't, how changes travel."),
    ]

    func addDocsRoutes(to router: Router) {
        router.get("/docs") { [self] request in try await docsPage("index", request) }
        router.get("/docs/:page") { [self] request in try await docsPage(request.parameters["page"] ?? "", request) }
        router.get("/docs/:page.md") { [self] request in
            let slug = request.parameters["page"] ?? ""
            guard slug == "index" || Self.docsPages.contains(where: { $0.slug == slug }) else {
                return .text("There is no documentation page \"\(slug)\"; see /docs.\n", status: .notFound)
            }
            let figures = await LiveFigures.read(from: inspector, sessions: sessions)
            var response = Response(status: .ok, headers: [.contentType: "text/markdown; charset=utf-8"],
                                    body: .text(try docsMarkdown(slug, figures: figures)))
            response.headers[.cacheControl] = "no-store"
            return response
        }
    }

    private func docsPage(_ slug: String, _ request: Request) async throws -> Response {
        let visit = visit(request)
        let page = Self.docsPages.first { $0.slug == slug }
        guard slug == "index" || page != nil else {
            return errorPage(.notFound, title: "No such page",
                             message: "There is no documentation page \u{201C}\(slug)\u{201D}.",
                             link: "/docs", linkText: "All documentation pages", visit: visit)
        }
        let figures = await LiveFigures.read(from: inspector, sessions: sessions)
        let html = Markdown().html(from: try docsMarkdown(slug, figures: figures))
        let article = DocsArticle(html: html, slug: slug, isIndex: slug == "index",
                                  pages: Self.docsPages.map { DocsArticle.Link(slug: $0.slug, title: $0.title,
                                                                                current: $0.slug == slug) })
        return render("docs/article", chrome: chrome(page?.title ?? "Documentation", section: "docs", session: visit.session),
                      page: article, visit: visit)
    }

    /// The page's markdown: its template filled with the figures (escaped for markdown).
    private func docsMarkdown(_ slug: String, figures: LiveFigures) throws -> String {
        try pages.render("docs/\(slug)", DocsContext(figures: figures, pages: Self.docsPages), layout: nil)
    }
}

/// What a docs template sees: the live figures at the top level, and the list of pages.
struct DocsContext: Sendable {
    let figures: LiveFigures
    let pages: [Dashboard.DocsPage]
}

/// `Templates/docs/article.mustache`: a rendered page beside the list of pages.
struct DocsArticle: Sendable {
    struct Link: Sendable {
        let slug: String
        let title: String
        let current: Bool
    }

    let html: String
    let slug: String
    let isIndex: Bool
    let pages: [Link]
}
