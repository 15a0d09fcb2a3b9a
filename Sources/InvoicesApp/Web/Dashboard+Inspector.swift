import Foundation
import HTTPTypes
import ObjectGraph
import WebServer

/// The live context inspector: `/contexts` (the page), `/contexts.md` (the markdown it is
/// rendered from), `/contexts.json` (the same data), `/contexts/events` (server-sent events
/// carrying the re-rendered page after each change) and `/contexts/{context}/{Entity}/{key}`
/// (one object in each context of its chain). Guarded by ``InspectorAccess``.
extension Dashboard {
    func addInspectorRoutes(to router: Router) {
        inspector.setLiveRenderer { [pages] snapshot in Self.liveHTML(snapshot, pages: pages) }
        router.get("/contexts") { [self] request in
            try await guarded(request, .html) { try await inspectorPage(request) }
        }
        router.get("/contexts.md") { [self] request in
            try await guarded(request, .text) {
                let snapshot = await inspector.snapshotter.snapshot()
                var response = Response(status: .ok, headers: [.contentType: "text/markdown; charset=utf-8"],
                                        body: .text(try Self.markdown(snapshot, pages: pages)))
                response.headers[.cacheControl] = "no-store"
                return response
            }
        }
        router.get("/contexts.json") { [self] request in
            try await guarded(request, .json) {
                var response = try Response.json(await inspector.snapshotter.snapshot(), encoder: Self.jsonEncoder())
                response.headers[.cacheControl] = "no-store"
                return response
            }
        }
        router.get("/contexts/events") { [self] request in
            try await guarded(request, .text) { .eventStream(inspector.subscribe()) }
        }
        router.get("/contexts/:context/:entity/:key") { [self] request in
            try await guarded(request, .html) { try await objectPage(request, json: false) }
        }
        router.get("/contexts/:context/:entity/:key.json") { [self] request in
            try await guarded(request, .json) { try await objectPage(request, json: true) }
        }
    }

    /// How a route answers a refusal.
    private enum RefusalFormat { case html, text, json }

    /// Runs `body` when ``InspectorAccess`` lets the request in; 403 with the reason otherwise.
    private func guarded(_ request: Request, _ format: RefusalFormat,
                         _ body: () async throws -> Response) async throws -> Response {
        switch inspector.access.decide(request) {
        case .refused(let reason):
            switch format {
            case .html:
                return errorPage(.forbidden, title: "Inspector closed", message: reason, link: "/docs",
                                 linkText: "Read the documentation instead", visit: visit(request))
            case .text:
                return .text(reason + "\n", status: .forbidden)
            case .json:
                return try .json(["error": reason], status: .forbidden)
            }
        case .allowed(let setCookie):
            var response = try await body()
            if setCookie, let cookie = inspector.access.cookie() { response.setCookie(cookie) }
            return response
        }
    }

    private func inspectorPage(_ request: Request) async throws -> Response {
        let visit = visit(request)
        let snapshot = await inspector.snapshotter.snapshot()
        return render("contexts/page", chrome: chrome("Contexts", section: "contexts", session: visit.session),
                      page: ["live": Self.liveHTML(snapshot, pages: pages)], visit: visit)
    }

    private func objectPage(_ request: Request, json: Bool) async throws -> Response {
        let contextID = request.parameters["context"] ?? ""
        let chain: ObjectChain
        do throws(ObjectChain.LookupError) {
            guard let context = inspector.identities.context(named: contextID) else { throw .unknownContext(contextID) }
            let id = try ObjectChain.objectID(entity: request.parameters["entity"] ?? "", key: request.parameters["key"] ?? "",
                                              in: stack)
            chain = await ObjectChain.read(id, from: context, named: contextID, identities: inspector.identities)
        } catch {
            let status: HTTPResponse.Status = error == .malformedKey(request.parameters["key"] ?? "") ? .badRequest : .notFound
            if json { return try .json(["error": error.message], status: status) }
            return errorPage(status, title: status == .notFound ? "Not found" : "Bad object key", message: error.message,
                             link: "/contexts", linkText: "The live contexts", visit: visit(request))
        }
        if json { return try .json(chain, encoder: Self.jsonEncoder()) }
        let visit = visit(request)
        let page = ObjectChainPage(chain, jsonPath: request.path + ".json")
        return render("contexts/object", chrome: chrome(chain.object, section: "contexts", session: visit.session),
                      page: page, visit: visit)
    }

    // MARK: Rendering

    /// The markdown of `/contexts.md`: `contexts/inspector.mustache` filled with the snapshot
    /// (values escaped for markdown by the template's content type).
    static func markdown(_ snapshot: StackSnapshot, pages: TemplateRenderer) throws -> String {
        try pages.render("contexts/inspector", InspectorPageModel(snapshot), layout: nil)
    }

    /// The live part of `/contexts`: the markdown through cmark (safe mode: raw HTML in it is
    /// dropped), with the picture of the stack in place of the text diagram.
    static func liveHTML(_ snapshot: StackSnapshot, pages: TemplateRenderer) -> String {
        do {
            let html = Markdown().html(from: try markdown(snapshot, pages: pages))
            let picture = try pages.render("contexts/picture", StackPicture(snapshot), layout: nil)
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
