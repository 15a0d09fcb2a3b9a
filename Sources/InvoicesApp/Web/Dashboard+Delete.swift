import Foundation
import HTTPTypes
import ObjectGraph
import WebServer

/// Deleting with a confirmation page: `GET /clients/{pk}/delete` says what goes (a client's
/// invoices go with it), `POST` (with the CSRF token) deletes in a scratchpad and saves it
/// through to the file like a form (``InvoicesStack/save(_:policy:)``).
extension Dashboard {
    func addDeleteRoutes(to router: Router) {
        router.get("/clients/:pk/delete") { [self] request in try await confirmDelete(.client, request) }
        router.get("/invoices/:pk/delete") { [self] request in try await confirmDelete(.invoice, request) }
        router.post("/clients/:pk/delete") { [self] request in try await delete(.client, request) }
        router.post("/invoices/:pk/delete") { [self] request in try await delete(.invoice, request) }
    }

    private func confirmDelete(_ kind: EditForm.Kind, _ request: Request) async throws -> Response {
        let visit = visit(request, needsSession: true)
        guard let pk = Self.primaryKey(request) else { return notFound(kind.rawValue, visit: visit) }
        let page: DeletePage?
        switch kind {
        case .client:
            page = try await stack.clientDetail(id: pk, today: today).map {
                DeletePage(what: "client", name: $0.address.name, action: "/clients/\(pk)/delete",
                           cancelLink: "/clients/\(pk)", invoiceCount: $0.invoices.count, isClient: true)
            }
        case .invoice:
            page = try await stack.invoiceDetail(id: pk, today: today).map {
                DeletePage(what: "invoice", name: $0.summary.identifier, action: "/invoices/\(pk)/delete",
                           cancelLink: "/invoices/\(pk)", invoiceCount: 0, isClient: false)
            }
        }
        guard let page else { return notFound(kind.rawValue, visit: visit) }
        return render("delete", chrome: chrome("Delete \(page.name)?", section: String(kind.listPath.dropFirst()),
                                               session: visit.session),
                      page: page, visit: visit)
    }

    private func delete(_ kind: EditForm.Kind, _ request: Request) async throws -> Response {
        let submission: Submission
        switch try checkedPost(request) {
        case .refused(let response): return response
        case .accepted(let accepted): submission = accepted
        }
        let visit: Visit = (submission.session, false)
        guard let pk = Self.primaryKey(request) else { return notFound(kind.rawValue, visit: visit) }
        let scratchpad = stack.newScratchpad(name: "delete \(kind.rawValue) \(pk)")
        let name: String? = try await scratchpad.perform {
            let object: ManagedObject?
            let name: String
            switch kind {
            case .client:
                let client = try scratchpad.existingObject(Client.self, primaryKey: pk)
                object = client; name = client?.name ?? ""
            case .invoice:
                let invoice = try scratchpad.existingObject(Invoice.self, primaryKey: pk)
                object = invoice; name = invoice?.identifier ?? ""
            }
            guard let object else { return nil }
            scratchpad.delete(object)
            return name
        }
        guard let name else { return notFound(kind.rawValue, visit: visit) }
        let back = "\(kind.listPath)/\(pk)"
        switch await stack.save(scratchpad) {
        case .saved:
            let noun = kind == .client ? "Client" : "Invoice"
            sessions.setFlash("\(noun) \u{201C}\(name)\u{201D} deleted.", for: visit.session.id)
            return .redirect(to: kind.listPath)
        case .invalid(let failures):
            return errorPage(.unprocessableContent, title: "Not deleted",
                             message: failures.map(\.message).joined(separator: " "), link: back, linkText: "Back", visit: visit)
        case .duplicate(let violation):
            return errorPage(.unprocessableContent, title: "Not deleted", message: violation.description,
                             link: back, linkText: "Back", visit: visit)
        case .conflict:
            return errorPage(.conflict, title: "Changed meanwhile, not deleted",
                             message: "Someone changed or deleted this \(kind.rawValue) while you were deciding, so nothing was deleted. Look at it again first.",
                             link: back, linkText: "Back to the \(kind.rawValue)", visit: visit)
        case .busy:
            var response = errorPage(.serviceUnavailable, title: "Busy, not deleted",
                                     message: "The database is busy: another program held it for longer than this server waits. Nothing was deleted; try again in a few seconds.",
                                     link: back, linkText: "Back", visit: visit)
            response.headers[.retryAfter] = "5"
            return response
        case .failed(let reason):
            return errorPage(.internalServerError, title: "Not deleted",
                             message: "Nothing was deleted: the database refused it (\(reason)).", link: back,
                             linkText: "Back", visit: visit)
        }
    }
}
