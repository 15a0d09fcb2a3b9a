import Foundation
import HTTPTypes
import WebServer

/// The documentation: `/docs` and `/docs/{page}` (and `/docs/{page}.md`), markdown templates in
/// `Templates/docs/` filled with live figures of the running server (``LiveFigures``), then
/// rendered through cmark into the site's layout. Unknown pages answer 404.
struct DocsRoutes: Sendable {
    /// A page of the documentation.
    struct DocsPage: Sendable {
        /// The URL's last segment and the template's name under `docs/`.
        let slug: String
        let title: String
        let summary: String
    }

    /// The pages, in reading order.
    static let pages: [DocsPage] = [
        DocsPage(slug: "nested-contexts", title: "Nested contexts",
                 summary: "Scratchpads, deferred saves, saving through to the store, and when not to nest."),
        DocsPage(slug: "threading", title: "Threading",
                 summary: "What crosses queues (object IDs, change sets, snapshots) and what never does (objects)."),
        DocsPage(slug: "object-ids", title: "Object IDs",
                 summary: "Temporary and permanent IDs, URIs, and where each may be used."),
        DocsPage(slug: "merge-policies", title: "Merge policies and conflicts",
                 summary: "What happens when two contexts change the same property, and how a save decides."),
        DocsPage(slug: "coordinators", title: "Several coordinators and processes",
                 summary: "Two stacks on one SQLite file: what they share, what they don't, how changes travel."),
    ]

    let inspector: Inspector
    let renderer: PageRenderer

    func addRoutes(to router: Router) {
        let docs = router.group(context: DashboardContext.self)
            .adding(SessionMiddleware(sessions: renderer.sessions, creating: false))
        docs.get("/docs") { _, context in try await page("index", context) }
        docs.get("/docs/:page") { request, context in try await page(request.parameters["page"] ?? "", context) }
        docs.get("/docs/:page.md") { request, _ in
            let slug = request.parameters["page"] ?? ""
            guard Self.exists(slug) else {
                return .text("There is no documentation page \"\(slug)\"; see /docs.\n", status: .notFound)
            }
            return Response(status: .ok, headers: [.contentType: "text/markdown; charset=utf-8", .cacheControl: "no-store"],
                            body: .text(try await markdown(slug)))
        }
    }

    private static func exists(_ slug: String) -> Bool { slug == "index" || pages.contains { $0.slug == slug } }

    private func page(_ slug: String, _ context: DashboardContext) async throws -> Response {
        guard Self.exists(slug) else {
            return renderer.errorPage(.notFound, title: "No such page",
                                      message: "There is no documentation page \u{201C}\(slug)\u{201D}.",
                                      link: "/docs", linkText: "All documentation pages", session: context.session)
        }
        let html = Markdown(reservedAnchors: PageRenderer.layoutAnchors).html(from: try await markdown(slug))
        let article = DocsArticle(html: html, slug: slug, isIndex: slug == "index",
                                  pages: Self.pages.map { DocsArticle.Link(slug: $0.slug, title: $0.title, current: $0.slug == slug) })
        let title = Self.pages.first { $0.slug == slug }?.title ?? "Documentation"
        return renderer.page("docs/article", title: title, section: "docs", session: context.session, page: article)
    }

    /// The page's markdown: its template filled with the figures (escaped for markdown).
    private func markdown(_ slug: String) async throws -> String {
        let figures = await LiveFigures.read(from: inspector, sessions: renderer.sessions)
        return try renderer.templates.render("docs/\(slug)", DocsContext(figures: figures, pages: Self.pages), layout: nil)
    }
}

/// What a docs template sees: the live figures at the top level, and the list of pages.
struct DocsContext: Sendable {
    let figures: LiveFigures
    let pages: [DocsRoutes.DocsPage]
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
