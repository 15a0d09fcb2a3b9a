import Foundation
import HTTPTypes
import ObjectGraph
import WebServer

/// The live context inspector: `/contexts` (the page), `/contexts.md` (the markdown it is
/// rendered from), `/contexts.json` (the same data), `/contexts/events` (server-sent events
/// carrying the re-rendered page after each change) and `/contexts/{context}/{Entity}/{key}`
/// (one object in each context of its chain). Behind ``InspectorGate``.
struct InspectorRoutes: Sendable {
    let inspector: Inspector
    let renderer: PageRenderer
    let stack: InvoicesStack

    func addRoutes(to router: Router) {
        inspector.setLiveRenderer { [templates = renderer.templates] snapshot in Self.liveHTML(snapshot, templates: templates) }
        let sessions = SessionMiddleware(sessions: renderer.sessions, creating: false)
        let html = router.group(context: DashboardContext.self).adding(sessions)
            .adding(InspectorGate(access: inspector.access, renderer: renderer, format: .html))
        let text = router.group(context: DashboardContext.self)
            .adding(InspectorGate(access: inspector.access, renderer: renderer, format: .text))
        let json = router.group(context: DashboardContext.self)
            .adding(InspectorGate(access: inspector.access, renderer: renderer, format: .json))
        html.get("/contexts") { _, context in await page(context) }
        text.get("/contexts.md") { _, _ in
            let snapshot = await inspector.snapshotter.snapshot()
            return Response(status: .ok, headers: [.contentType: "text/markdown; charset=utf-8", .cacheControl: "no-store"],
                            body: .text(try Self.markdown(snapshot, templates: renderer.templates)))
        }
        json.get("/contexts.json") { _, _ in
            var response = try Response.json(await inspector.snapshotter.snapshot(), encoder: PageRenderer.jsonEncoder())
            response.headers[.cacheControl] = "no-store"
            return response
        }
        text.get("/contexts/events") { _, _ in .eventStream(inspector.subscribe()) }
        html.get("/contexts/:context/:entity/:key") { request, context in try await objectPage(request, context, json: false) }
        json.get("/contexts/:context/:entity/:key.json") { request, context in try await objectPage(request, context, json: true) }
    }

    private func page(_ context: DashboardContext) async -> Response {
        let snapshot = await inspector.snapshotter.snapshot()
        return renderer.page("contexts/page", title: "Contexts", section: "contexts", session: context.session,
                             page: ["live": Self.liveHTML(snapshot, templates: renderer.templates)])
    }

    private func objectPage(_ request: Request, _ context: DashboardContext, json: Bool) async throws -> Response {
        let contextID = request.parameters["context"] ?? ""
        let chain: ObjectChain
        do throws(ObjectChain.LookupError) {
            guard let target = inspector.identities.context(named: contextID) else { throw .unknownContext(contextID) }
            let id = try ObjectChain.objectID(entity: request.parameters["entity"] ?? "", key: request.parameters["key"] ?? "",
                                              in: stack)
            chain = await ObjectChain.read(id, from: target, named: contextID, identities: inspector.identities)
        } catch {
            let status: HTTPResponse.Status = error == .malformedKey(request.parameters["key"] ?? "") ? .badRequest : .notFound
            if json { return try .json(["error": error.message], status: status) }
            return renderer.errorPage(status, title: status == .notFound ? "Not found" : "Bad object key", message: error.message,
                                      link: "/contexts", linkText: "The live contexts", session: context.session)
        }
        if json { return try .json(chain, encoder: PageRenderer.jsonEncoder()) }
        return renderer.page("contexts/object", title: chain.object, section: "contexts", session: context.session,
                             page: ObjectChainPage(chain, jsonPath: request.path + ".json"))
    }

    // MARK: Rendering

    /// The markdown of `/contexts.md`: `contexts/inspector.mustache` filled with the snapshot
    /// (values escaped for markdown by the template's content type).
    static func markdown(_ snapshot: StackSnapshot, templates: TemplateRenderer) throws -> String {
        try templates.render("contexts/inspector", InspectorPageModel(snapshot), layout: nil)
    }

    /// The live part of `/contexts`: the markdown through cmark (safe mode: raw HTML in it is
    /// dropped), with the picture of the stack in place of the text diagram.
    static func liveHTML(_ snapshot: StackSnapshot, templates: TemplateRenderer) -> String {
        do {
            let html = Markdown(reservedAnchors: PageRenderer.layoutAnchors).html(from: try markdown(snapshot, templates: templates))
            let picture = try templates.render("contexts/picture", StackPicture(snapshot), layout: nil)
            // The diagram is the page's only `text` code block: values from the data cannot
            // open one (their backticks are escaped).
            guard let start = html.range(of: "<pre><code class=\"language-text\">"),
                  let end = html.range(of: "</code></pre>", range: start.upperBound..<html.endIndex) else { return html }
            return html.replacingCharacters(in: start.lowerBound..<end.upperBound, with: picture)
        } catch {
            // Only a missing or broken template gets here: the message names no data.
            return "<p>The inspector could not be rendered (its templates are missing or broken).</p>"
        }
    }
}

/// Lets a request into the inspector when ``InspectorAccess`` says so, and answers 403 with the
/// reason otherwise (as a page, text or JSON, as the route serves); remembers a token given in
/// the query in a cookie.
struct InspectorGate: RouterMiddleware {
    enum Format: Sendable { case html, text, json }

    let access: InspectorAccess
    let renderer: PageRenderer
    let format: Format

    func handle(_ request: Request, context: DashboardContext,
                next: @Sendable (Request, DashboardContext) async throws -> Response) async throws -> Response {
        switch access.decide(request) {
        case .refused(let reason):
            switch format {
            case .html:
                return renderer.errorPage(.forbidden, title: "Inspector closed", message: reason, link: "/docs",
                                          linkText: "Read the documentation instead", session: context.session)
            case .text:
                return .text(reason + "\n", status: .forbidden)
            case .json:
                return try .json(["error": reason], status: .forbidden)
            }
        case .allowed(let setCookie):
            var response = try await next(request, context)
            if setCookie, let cookie = access.cookie(secure: request.isSecure) { response.setCookie(cookie) }
            return response
        }
    }
}

/// `/contexts/{context}/{Entity}/{key}`: the object chain as the template reads it.
struct ObjectChainPage: Sendable {
    let object: String
    let temporaryID: Bool
    let columns: [ObjectChain.Column]
    let rows: [ObjectChain.Row]
    let columnCount: Int
    let jsonPath: String

    init(_ chain: ObjectChain, jsonPath: String) {
        object = chain.object
        temporaryID = chain.temporaryID
        columns = chain.columns
        rows = chain.rows
        columnCount = chain.columns.count + 1
        self.jsonPath = jsonPath
    }
}
