import Foundation
import HTTPTypes
import ObjectGraph
import WebServer

/// `/clients/{pk}`, `/invoices/{pk}` and their `.json` twins. An unknown or malformed pk is a 404 page.
extension Dashboard {
    func addDetailRoutes(to router: Router) {
        router.get("/clients/:pk") { [self] request in try await clientPage(request) }
        router.get("/clients/:pk.json") { [self] request in
            guard let pk = Self.primaryKey(request), let detail = try await stack.clientDetail(id: pk, today: today) else {
                return try .json(["error": "No client with this number."], status: .notFound)
            }
            return try .json(detail, encoder: Self.jsonEncoder())
        }
        router.get("/invoices/:pk") { [self] request in try await invoicePage(request) }
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
        let visit = visit(request)
        guard let pk = Self.primaryKey(request), let detail = try await stack.clientDetail(id: pk, today: today) else {
            return notFound("client", visit: visit)
        }
        let model = ClientPage(detail, beingEdited: beingEdited("Client").contains(pk),
                               invoicesBeingEdited: beingEdited("Invoice"))
        return render("clients/show", chrome: chrome(detail.address.name, section: "clients", session: visit.session),
                      page: model, visit: visit)
    }

    private func invoicePage(_ request: Request) async throws -> Response {
        let visit = visit(request)
        guard let pk = Self.primaryKey(request), let detail = try await stack.invoiceDetail(id: pk, today: today) else {
            return notFound("invoice", visit: visit)
        }
        let model = InvoicePage(detail, beingEdited: beingEdited("Invoice").contains(pk))
        return render("invoices/show",
                      chrome: chrome("Invoice \(detail.summary.identifier)", section: "invoices", session: visit.session),
                      page: model, visit: visit)
    }
}
