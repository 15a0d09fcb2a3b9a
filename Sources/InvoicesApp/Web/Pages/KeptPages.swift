import Foundation
import HTTPTypes
import Mustache
import ObjectGraph
import WebServer

/// Which read page a request shows, and everything else its HTML depends on: the page's own
/// query, the "being edited" marks (objects open in any session's forms) and the day
/// "overdue" is judged against. With the data's ``Generation`` it decides whether a page
/// rendered earlier can be served again (``PageCache``).
struct ReadPageKey: Hashable, Sendable {
    enum Page: Hashable, Sendable {
        case clients(ClientQuery)
        case invoices(InvoiceQuery)
        case client(Int64)
        case invoice(Int64)
    }

    let page: Page
    /// Primary keys of the clients open in some form, sorted (only for pages that mark clients).
    let editedClients: [Int64]
    /// Primary keys of the invoices open in some form, sorted (only for pages that mark invoices).
    let editedInvoices: [Int64]
    let today: CalendarDay
}

/// What a read page's data came to: read on the main context into this `Sendable` model,
/// rendered off the main queue.
struct ReadPage: Sendable {
    let template: String
    let title: String
    /// The navigation's current section.
    let section: String
    let model: any MustacheParent & Sendable
}

/// Read pages kept while their data has not changed, and served again.
///
/// What is per visitor stays correct: a page with a one-time flash message is rendered for its
/// visitor alone and never kept; read pages carry no CSRF token or other session data; the
/// "being edited" marks are part of the key. Kept pages go out with an `ETag` and
/// `Cache-Control: no-cache`, so a browser revalidates and gets 304 while nothing changed.
struct KeptPages: Sendable {
    let stack: InvoicesStack
    let renderer: PageRenderer
    let cache: PageCache<ReadPageKey>
    /// The day "overdue" is decided against; nil for the real today.
    let fixedToday: CalendarDay?

    var today: CalendarDay { fixedToday ?? .today }

    /// The key of `page` for a request now.
    func key(_ page: ReadPageKey.Page) -> ReadPageKey {
        let edited = renderer.sessions.objectsBeingEdited()
        func keys(_ entity: String) -> [Int64] {
            edited.isEmpty ? [] : edited.filter { $0.entityName == entity }.compactMap(\.primaryKey).sorted()
        }
        let marksClients: Bool, marksInvoices: Bool
        switch page {
        case .clients: (marksClients, marksInvoices) = (true, false)
        case .invoices, .invoice: (marksClients, marksInvoices) = (false, true)
        case .client: (marksClients, marksInvoices) = (true, true)
        }
        return ReadPageKey(page: page, editedClients: marksClients ? keys("Client") : [],
                           editedInvoices: marksInvoices ? keys("Invoice") : [], today: today)
    }

    /// The fast path, on the server thread: the kept page if it is current and the visitor
    /// has no flash message waiting; nil sends the request down the asynchronous path.
    func response(_ page: ReadPageKey.Page, _ request: Request) -> Response? {
        guard renderer.sessions.session(request.cookies[SessionMiddleware.cookieName])?.flash == nil,
              let kept = cache.page(for: key(page), generation: stack.generation) else { return nil }
        return Self.response(kept, request)
    }

    /// The page: kept, or read (`read` runs once per key and generation however many requests
    /// wait for it) and rendered. `read` returns nil when the object does not exist (404).
    func page(_ page: ReadPageKey.Page, _ request: Request, session: Session?, notFound what: String,
              read: @escaping @Sendable (ReadPageKey) async throws -> ReadPage?) async throws -> Response {
        let key = key(page)
        if let session, let flash = renderer.sessions.takeFlash(session.id) {
            // The visitor's own one-time message: rendered for them, never kept.
            guard let page = try await read(key) else { return renderer.notFound(what, session: session) }
            return renderer.render(page.template, chrome: PageChrome(title: page.title, section: page.section, flash: flash,
                                                                     csrf: session.csrfToken), page: page.model)
        }
        // Taken before reading: what is read is at least as new as the generation it is kept under.
        let generation = stack.generation
        let rendered = try await cache.page(for: key, generation: generation) { [renderer] in
            guard let page = try await read(key) else {
                return CachedPage(status: .notFound, html: renderer.notFound(what, session: nil).bodyText ?? "")
            }
            let chrome = PageChrome(title: page.title, section: page.section, flash: nil, csrf: "")
            return CachedPage(status: .ok, html: try renderer.templates.render(page.template,
                                                                                TemplateContext(chrome: chrome, page: page.model)))
        }
        return Self.response(rendered, request)
    }

    /// A kept page as a response; 304 when the browser already has this version.
    static func response(_ page: CachedPage, _ request: Request) -> Response {
        guard page.status == .ok else {
            var response = Response(status: page.status, headers: [.contentType: "text/html; charset=utf-8"],
                                    body: .bytes(page.body))
            response.headers[.cacheControl] = "no-store"
            return response
        }
        if let tags = request.headers[.ifNoneMatch], matches(tags, page.etag) {
            return Response(status: .notModified, headers: [.eTag: page.etag, .cacheControl: "no-cache"])
        }
        return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .eTag: page.etag,
                                               .cacheControl: "no-cache"],
                        body: .bytes(page.body))
    }

    /// Whether an `If-None-Match` value names `etag` (weak comparison, as RFC 9110 asks for it).
    static func matches(_ ifNoneMatch: String, _ etag: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag
        }
    }
}
