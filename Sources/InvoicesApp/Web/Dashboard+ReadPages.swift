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

/// Serving the read pages (`/clients`, `/invoices`, `/clients/{pk}`, `/invoices/{pk}`) from
/// ``readPages`` while their data has not changed.
///
/// What is per visitor stays correct: a page with a one-time flash message is rendered for
/// its visitor alone and never kept; read pages carry no CSRF token or other session data;
/// the "being edited" marks are part of the key. Kept pages go out with an `ETag` and
/// `Cache-Control: no-cache`, so a browser revalidates and gets 304 while nothing changed.
extension Dashboard {
    /// The key of `page` for a request now.
    func readPageKey(_ page: ReadPageKey.Page) -> ReadPageKey {
        let edited = sessions.objectsBeingEdited()
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
    func keptPage(_ page: ReadPageKey.Page, _ request: Request) -> Response? {
        guard visit(request).session.flash == nil else { return nil }
        guard let kept = readPages.page(for: readPageKey(page), generation: stack.generation) else { return nil }
        return response(kept, request)
    }

    /// The page: kept, or read (`read` runs once per key and generation however many requests
    /// wait for it) and rendered. `read` returns nil when the object does not exist (404).
    func readPage(_ page: ReadPageKey.Page, _ request: Request, notFound what: String,
                  read: @escaping @Sendable (ReadPageKey) async throws -> ReadPage?) async throws -> Response {
        let visit = visit(request)
        let key = readPageKey(page)
        if !visit.session.id.isEmpty, let flash = sessions.takeFlash(visit.session.id) {
            // The visitor's own one-time message: rendered for them, never kept.
            guard let page = try await read(key) else { return notFound(what, visit: visit) }
            return render(page.template, chrome: PageChrome(title: page.title, section: page.section, flash: flash,
                                                            csrf: visit.session.csrfToken),
                          page: page.model, visit: visit)
        }
        // Taken before reading: what is read is at least as new as the generation it is kept under.
        let generation = stack.generation
        let rendered = try await readPages.page(for: key, generation: generation) { [self] in
            guard let page = try await read(key) else {
                let anonymous: Visit = (Session(id: "", csrfToken: "", lastSeen: .now), false)
                return CachedPage(status: .notFound, html: notFound(what, visit: anonymous).bodyText ?? "")
            }
            let chrome = PageChrome(title: page.title, section: page.section, flash: nil, csrf: "")
            return CachedPage(status: .ok, html: try pages.render(page.template, TemplateContext(chrome: chrome, page: page.model)))
        }
        return response(rendered, request)
    }

    /// A kept page as a response; 304 when the browser already has this version.
    func response(_ page: CachedPage, _ request: Request) -> Response {
        guard page.status == .ok else {
            var response = Response(status: page.status, headers: [.contentType: "text/html; charset=utf-8"],
                                    body: .bytes(page.body))
            response.headers[.cacheControl] = "no-store"
            return response
        }
        if let tags = request.headers[.ifNoneMatch], Self.matches(tags, page.etag) {
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
