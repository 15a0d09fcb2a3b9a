import Foundation
import ObjectGraph
import HTTPTypes
import WebServer

/// The Invoices dashboard: its routes over an ``InvoicesStack``.
///
/// Reads come from the main context, each read into a `Sendable` page model inside one
/// `perform` block, then rendered off the main queue; rendered read pages are kept and served
/// again, from the server thread, until the data changes (``readPages``). Edits happen in scratchpads, one per
/// open form, held in the visitor's server-side session (``SessionStore``).
///
/// `Sendable`: every property is immutable and `Sendable`.
public final class Dashboard: Sendable {
    let stack: InvoicesStack
    let pages: TemplateRenderer
    let sessions: SessionStore
    /// The imports started from the upload page.
    let imports = ImportJobs()
    /// The live context inspector (`/contexts`), also the source of the docs' live figures.
    let inspector: Inspector
    /// Read pages already rendered, served again while their data is unchanged.
    let readPages = PageCache<ReadPageKey>()

    /// The largest edit or delete form accepted (413 above it); an upload may be larger
    /// (up to ``DashboardServer/maximumBodySize``).
    static let maximumFormSize = 256 << 10
    /// The day "overdue" is decided against; nil for the real today.
    let fixedToday: CalendarDay?

    /// The name of the session cookie.
    static let sessionCookie = "sid"

    /// - Parameters:
    ///   - templatesDirectory: the folder of the `.mustache` files (the repository's `Templates/`).
    ///   - idleTimeout: how long an unused session (and its open forms) lives.
    ///   - listeningHost, inspectorToken: the inspector needs the token unless the server
    ///     listens on loopback only (see ``InspectorAccess``).
    /// - Throws: `TemplateRenderer.Error` when the templates cannot be read.
    public init(stack: InvoicesStack, templatesDirectory: String, idleTimeout: Duration = .seconds(30 * 60),
                maximumFormsPerSession: Int = 20, today: CalendarDay? = nil,
                listeningHost: String = "127.0.0.1", inspectorToken: String? = nil) throws {
        self.stack = stack
        self.pages = try TemplateRenderer(directory: templatesDirectory)
        self.sessions = SessionStore(idleTimeout: idleTimeout, maximumForms: maximumFormsPerSession)
        self.fixedToday = today
        self.inspector = Inspector(stack: stack, sessions: sessions, persist: stack.persistMode,
                                   access: InspectorAccess(host: listeningHost, token: inspectorToken))
    }

    var today: CalendarDay { fixedToday ?? .today }

    /// A router with every page of the dashboard, and the files of `publicDirectory` under `/static`.
    public func makeRouter(publicDirectory: String) throws -> Router {
        let router = Router()
        router.get("/") { _ in .redirect(to: "/clients") }
        router.serveFiles(at: "/static", from: try StaticFiles(directory: publicDirectory))
        addListRoutes(to: router)
        addDetailRoutes(to: router)
        addFormRoutes(to: router)
        addDeleteRoutes(to: router)
        addSetAsideRoutes(to: router)
        addImportRoutes(to: router)
        addInspectorRoutes(to: router)
        addDocsRoutes(to: router)
        return router
    }

    // MARK: Sessions

    /// The visitor's session. Pages that hold a form (`needsSession`) make one when there is
    /// none (then `setCookie` is true and the response sets it); read pages do not, so a
    /// crawler or a benchmark reading lists leaves no sessions behind: they get a transient
    /// session with no ID, no token and no forms.
    func visit(_ request: Request, needsSession: Bool = false) -> (session: Session, setCookie: Bool) {
        let sid = request.cookies[Self.sessionCookie]
        if needsSession {
            let (session, isNew) = sessions.sessionOrNew(sid)
            return (session, isNew)
        }
        return (sessions.session(sid) ?? Session(id: "", csrfToken: "", lastSeen: .now), false)
    }

    /// The chrome of a page for this visit, taking the flash message.
    func chrome(_ title: String, section: String, session: Session) -> PageChrome {
        PageChrome(title: title, section: section, flash: sessions.takeFlash(session.id), csrf: session.csrfToken)
    }

    /// Renders `template` in the layout, with the session cookie when the visit made a session.
    func render(_ template: String, chrome: PageChrome, page: Any, status: HTTPResponse.Status = .ok,
                visit: (session: Session, setCookie: Bool)) -> Response {
        var response: Response
        do {
            response = .html(try pages.render(template, TemplateContext(chrome: chrome, page: page)), status: status)
        } catch {
            response = .text("The page could not be rendered: \(error)", status: .internalServerError)
        }
        if visit.setCookie { response.setCookie(sessionCookie(visit.session.id)) }
        response.headers[.cacheControl] = "no-store"
        return response
    }

    func sessionCookie(_ sid: String) -> Cookie {
        Cookie(name: Self.sessionCookie, value: sid, path: "/", httpOnly: true, sameSite: .lax)
    }

    /// A page saying what went wrong, with a link onwards: 404, 403, 410, 4xx.
    func errorPage(_ status: HTTPResponse.Status, title: String, message: String, link: String, linkText: String,
                   visit: (session: Session, setCookie: Bool)) -> Response {
        render("error", chrome: chrome(title, section: "", session: visit.session),
               page: ErrorPageModel(code: status.code, message: message, link: link, linkText: linkText),
               status: status, visit: visit)
    }

    /// The primary key in the route's `:pk`, or nil when it is not a positive number.
    static func primaryKey(_ request: Request) -> Int64? {
        guard let text = request.parameters["pk"], let pk = Int64(text), pk > 0 else { return nil }
        return pk
    }

    /// The query string's parameters as a dictionary (the first of a repeated name wins).
    static func parameters(_ request: Request) -> [String: String] {
        var result: [String: String] = [:]
        for pair in request.query where result[pair.name] == nil { result[pair.name] = pair.value }
        return result
    }

    /// The encoder of the `.json` twins: sorted keys, ISO 8601 dates.
    static func jsonEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

/// The error page's values.
struct ErrorPageModel: Sendable {
    let code: Int
    let message: String
    let link: String
    let linkText: String
}
