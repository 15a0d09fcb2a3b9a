import Foundation
import HTTPTypes
import WebServer

/// Renders the dashboard's pages in the site's layout: the chrome (title, navigation, the
/// visitor's one-time flash message and CSRF token) around a page's template. Every room of the
/// web layer renders through it; cookies and caching are the middleware's business.
struct PageRenderer: Sendable {
    let templates: TemplateRenderer
    let sessions: SessionStore

    /// The `id`s `layout.mustache` gives its own elements: markdown headings placed inside the
    /// layout must not take them.
    static let layoutAnchors: Set<String> = ["main"]

    /// The chrome of a page for this visitor, taking their flash message.
    func chrome(_ title: String, section: String, session: Session?) -> PageChrome {
        PageChrome(title: title, section: section, flash: session.flatMap { sessions.takeFlash($0.id) },
                   csrf: session?.csrfToken ?? "")
    }

    /// `template` in the layout.
    func render(_ template: String, chrome: PageChrome, page: Any, status: HTTPResponse.Status = .ok) -> Response {
        do {
            return .html(try templates.render(template, TemplateContext(chrome: chrome, page: page)), status: status)
        } catch {
            return .text("The page could not be rendered: \(error)", status: .internalServerError)
        }
    }

    /// `template` in the layout, with the chrome made for `session`.
    func page(_ template: String, title: String, section: String, session: Session?, page: Any,
              status: HTTPResponse.Status = .ok) -> Response {
        render(template, chrome: chrome(title, section: section, session: session), page: page, status: status)
    }

    /// A page saying what went wrong, with a link onwards: 404, 403, 410, 4xx, 5xx.
    func errorPage(_ status: HTTPResponse.Status, title: String, message: String, link: String, linkText: String,
                   session: Session?) -> Response {
        page("error", title: title, section: "", session: session,
             page: ErrorPageModel(code: status.code, message: message, link: link, linkText: linkText), status: status)
    }

    func notFound(_ what: String, session: Session?) -> Response {
        errorPage(.notFound, title: "Not found", message: "There is no \(what) with this number. It may have been deleted.",
                  link: "/\(what)s", linkText: "All \(what)s", session: session)
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
