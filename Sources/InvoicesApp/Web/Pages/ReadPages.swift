import Foundation
import HTTPTypes
import ObjectGraph
import WebServer

/// The read pages: `/clients`, `/invoices` (search, sort, filters, pages), `/clients/{pk}`,
/// `/invoices/{pk}`, their `.json` twins, `/invoices/{pk}.pdf` and `/invoices.csv`.
///
/// Each page reads the main context into a `Sendable` page model inside one `perform` block and
/// renders off the main queue; a rendered page is kept and served again, from the server
/// thread, until its data changes (``KeptPages``). Read pages look a session up (for its flash
/// message) but never make one.
struct ReadPages: Sendable {
    let stack: InvoicesStack
    let renderer: PageRenderer
    let kept: KeptPages
    let catalog: FormCatalog

    var today: CalendarDay { kept.today }

    func addRoutes(to router: Router) {
        let pages = router.group(context: DashboardContext.self)
            .adding(SessionMiddleware(sessions: renderer.sessions, creating: false))
        pages.get("/") { _, _ in .redirect(to: "/clients") }
        pages.get("/clients", immediate: { request in
            kept.response(.clients(ClientQuery(parameters: request.query.first)), request)
        }) { request, context in try await clientList(request, context) }
        pages.get("/clients.json") { request, _ in
            try .json(try await stack.clientPage(ClientQuery(parameters: request.query.first)), encoder: PageRenderer.jsonEncoder())
        }
        pages.get("/invoices", immediate: { request in
            kept.response(.invoices(InvoiceQuery(parameters: request.query.first)), request)
        }) { request, context in try await invoiceList(request, context) }
        pages.get("/invoices.json") { request, _ in
            let query = InvoiceQuery(parameters: request.query.first)
            return try .json(try await stack.invoicePage(query, today: today), encoder: PageRenderer.jsonEncoder())
        }
        pages.get("/invoices.csv") { request, _ in
            let query = InvoiceQuery(parameters: request.query.first)
            return CSVDownload.response(try await stack.invoiceCSV(query, today: today), filename: "invoices.csv")
        }
        pages.get("/clients.csv") { request, _ in
            let query = ClientQuery(parameters: request.query.first)
            return CSVDownload.response(try await stack.clientCSV(query), filename: "clients.csv")
        }
        addDetailRoutes(to: pages)
    }

    private func clientList(_ request: Request, _ context: DashboardContext) async throws -> Response {
        let query = ClientQuery(parameters: request.query.first)
        return try await kept.page(.clients(query), request, session: context.session, notFound: "client") { [stack] key in
            let page = try await stack.clientPage(query)
            return ReadPage(template: "clients/index", title: "Clients", section: "clients",
                            model: ClientListPage(page, query: query, beingEdited: Set(key.editedClients)))
        }
    }

    private func invoiceList(_ request: Request, _ context: DashboardContext) async throws -> Response {
        let query = InvoiceQuery(parameters: request.query.first)
        return try await kept.page(.invoices(query), request, session: context.session, notFound: "invoice") { [stack, renderer] key in
            let (page, totals) = try await stack.invoiceListing(query, today: key.today)
            let options = try InvoiceListPage.currencyOptions(selected: query.currency, templates: renderer.templates)
            return ReadPage(template: "invoices/index", title: "Invoices", section: "invoices",
                            model: InvoiceListPage(page, query: query, beingEdited: Set(key.editedInvoices), totals: totals,
                                                   currencyOptions: options))
        }
    }

    // MARK: Details

    private func addDetailRoutes(to pages: RouteCollection<DashboardContext>) {
        pages.get("/clients/:pk", immediate: { request in
            request.primaryKey.flatMap { kept.response(.client($0), request) }
        }) { request, context in try await clientPage(request, context) }
        pages.get("/clients/:pk.json") { request, _ in
            guard let pk = request.primaryKey, let detail = try await stack.clientDetail(id: pk, today: today) else {
                return try .json(["error": "No client with this number."], status: .notFound)
            }
            return try .json(detail, encoder: PageRenderer.jsonEncoder())
        }
        pages.get("/invoices/:pk", immediate: { request in
            request.primaryKey.flatMap { kept.response(.invoice($0), request) }
        }) { request, context in try await invoicePage(request, context) }
        pages.get("/invoices/:pk.json") { request, _ in
            guard let pk = request.primaryKey, let detail = try await stack.invoiceDetail(id: pk, today: today) else {
                return try .json(["error": "No invoice with this number."], status: .notFound)
            }
            return try .json(detail, encoder: PageRenderer.jsonEncoder())
        }
        pages.get("/invoices/:pk.pdf") { request, context in try await invoicePDF(request, context) }
    }

    /// `/invoices/{pk}.pdf`: read in one `perform`, laid out off the main queue.
    private func invoicePDF(_ request: Request, _ context: DashboardContext) async throws -> Response {
        guard let pk = request.primaryKey, let detail = try await stack.invoiceDetail(id: pk, today: today) else {
            return renderer.notFound("invoice", session: context.session)
        }
        let document = InvoiceDocument(detail)
        var response = Response.bytes(try InvoicePDF(document).render(), contentType: "application/pdf")
        response.headers[.contentDisposition] = "inline; filename=\"\(document.fileName)\""
        return response
    }

    private func clientPage(_ request: Request, _ context: DashboardContext) async throws -> Response {
        guard let pk = request.primaryKey else { return renderer.notFound("client", session: context.session) }
        let setAside = setAsideNotices(Client.self, pk)
        if let insert = setAside.insert { return .redirect(to: insert.link) }
        return try await kept.page(.client(pk), request, session: context.session, notFound: "client") { [stack] key in
            guard let detail = try await stack.clientDetail(id: pk, today: key.today) else { return nil }
            let model = ClientPage(detail, beingEdited: key.editedClients.contains(pk),
                                   invoicesBeingEdited: Set(key.editedInvoices), setAside: setAside.notices)
            return ReadPage(template: "clients/show", title: detail.address.name, section: "clients", model: model)
        }
    }

    private func invoicePage(_ request: Request, _ context: DashboardContext) async throws -> Response {
        guard let pk = request.primaryKey else { return renderer.notFound("invoice", session: context.session) }
        let setAside = setAsideNotices(Invoice.self, pk)
        if let insert = setAside.insert { return .redirect(to: insert.link) }
        return try await kept.page(.invoice(pk), request, session: context.session, notFound: "invoice") { [stack] key in
            guard let detail = try await stack.invoiceDetail(id: pk, today: key.today) else { return nil }
            return ReadPage(template: "invoices/show", title: "Invoice \(detail.summary.number)", section: "invoices",
                            model: InvoicePage(detail, beingEdited: key.editedInvoices.contains(pk), setAside: setAside.notices))
        }
    }

    /// The notices an object's page shows, and the set-aside insertion when the object is not
    /// in the file at all (its page is then the set-aside page).
    private func setAsideNotices<T: ManagedObject>(_ type: T.Type, _ pk: Int64) -> (notices: [SetAsideNotice], insert: SetAsideNotice?) {
        guard let id = stack.coordinator.managedObjectID(for: type, primaryKey: pk) else { return ([], nil) }
        let changes = stack.persistence.setAside(for: id)
        let notices = changes.map { SetAsideNotice($0, catalog: catalog) }
        return (notices, zip(changes, notices).first { $0.0.kind == .inserted }?.1)
    }
}
