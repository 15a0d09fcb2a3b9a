import Foundation
import HTTPTypes
import ObjectGraph
import WebServer

/// `/clients/{pk}`, `/invoices/{pk}` and their `.json` twins. An unknown or malformed pk is a 404 page.
extension Dashboard {
    func addDetailRoutes(to router: Router) {
        router.get("/clients/:pk", immediate: { [self] request in
            Self.primaryKey(request).flatMap { keptPage(.client($0), request) }
        }) { [self] request in try await clientPage(request) }
        router.get("/clients/:pk.json") { [self] request in
            guard let pk = Self.primaryKey(request), let detail = try await stack.clientDetail(id: pk, today: today) else {
                return try .json(["error": "No client with this number."], status: .notFound)
            }
            return try .json(detail, encoder: Self.jsonEncoder())
        }
        router.get("/invoices/:pk", immediate: { [self] request in
            Self.primaryKey(request).flatMap { keptPage(.invoice($0), request) }
        }) { [self] request in try await invoicePage(request) }
        router.get("/invoices/:pk.json") { [self] request in
            guard let pk = Self.primaryKey(request), let detail = try await stack.invoiceDetail(id: pk, today: today) else {
                return try .json(["error": "No invoice with this number."], status: .notFound)
            }
            return try .json(detail, encoder: Self.jsonEncoder())
        }
    }

    func notFound(_ what: String, visit: (session: Session, setCookie: Bool)) -> Response {
        errorPage(.notFound, title: "Not found", message: "There is no \(what) with this number. It may have been deleted.",
                  link: "/\(what)s", linkText: "All \(what)s", visit: visit)
    }

    private func clientPage(_ request: Request) async throws -> Response {
        guard let pk = Self.primaryKey(request) else { return notFound("client", visit: visit(request)) }
        let setAside = setAsideNotices(Client.self, pk)
        if let insert = setAside.insert { return .redirect(to: insert.link) }
        return try await readPage(.client(pk), request, notFound: "client") { [stack] key in
            guard let detail = try await stack.clientDetail(id: pk, today: key.today) else { return nil }
            let model = ClientPage(detail, beingEdited: key.editedClients.contains(pk),
                                   invoicesBeingEdited: Set(key.editedInvoices), setAside: setAside.notices)
            return ReadPage(template: "clients/show", title: detail.address.name, section: "clients", model: model)
        }
    }

    private func invoicePage(_ request: Request) async throws -> Response {
        guard let pk = Self.primaryKey(request) else { return notFound("invoice", visit: visit(request)) }
        let setAside = setAsideNotices(Invoice.self, pk)
        if let insert = setAside.insert { return .redirect(to: insert.link) }
        return try await readPage(.invoice(pk), request, notFound: "invoice") { [stack] key in
            guard let detail = try await stack.invoiceDetail(id: pk, today: key.today) else { return nil }
            return ReadPage(template: "invoices/show", title: "Invoice \(detail.summary.identifier)", section: "invoices",
                            model: InvoicePage(detail, beingEdited: key.editedInvoices.contains(pk),
                                               setAside: setAside.notices))
        }
    }
}
