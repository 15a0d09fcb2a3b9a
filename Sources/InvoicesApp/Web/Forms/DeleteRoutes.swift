import Foundation
import HTTPTypes
import ObjectGraph
import WebServer

/// Deleting with a confirmation page, for every editable entity: `GET /{path}/{pk}/delete`
/// says what goes (a client's invoices go with it: the relationships that cascade), `POST`
/// (behind ``CSRFCheck``) deletes in a scratchpad and saves it through to the file like a form
/// (``InvoicesStack/save(_:policy:)``).
struct DeleteRoutes: Sendable {
    let stack: InvoicesStack
    let renderer: PageRenderer
    let sessions: SessionStore
    let catalog: FormCatalog

    func addRoutes(to router: Router) {
        let confirming = router.group(context: DashboardContext.self).adding(SessionMiddleware(sessions: sessions, creating: true))
        let deleting = router.group(context: DashboardContext.self).limitingBodies(to: FormRoutes.maximumFormSize)
            .adding(SessionMiddleware(sessions: sessions, creating: false)).adding(CSRFCheck(renderer: renderer))
        for table in catalog.tables {
            confirming.get("/\(table.path)/:pk/delete") { request, context in try await confirm(table, request, context) }
            deleting.post("/\(table.path)/:pk/delete") { request, context in try await delete(table, request, context) }
        }
    }

    private func confirm(_ table: FormTable, _ request: Request, _ context: DashboardContext) async throws -> Response {
        let session = try context.requiredSession
        guard let pk = request.primaryKey else { return renderer.notFound(table.noun, session: session) }
        let main = stack.main, catalog = self.catalog
        let found: (String, [String])? = try await main.perform {
            guard let id = try table.find(main, pk), let object = try? main.existingObject(with: id) else { return nil }
            return (table.title(object), Self.cascades(of: object, catalog: catalog))
        }
        guard let (name, cascades) = found else { return renderer.notFound(table.noun, session: session) }
        let page = DeletePage(what: table.noun, name: name, action: "/\(table.path)/\(pk)/delete",
                              cancelLink: "/\(table.path)/\(pk)", cascades: cascades, hasCascades: !cascades.isEmpty)
        return renderer.page("delete", title: "Delete \(name)?", section: table.path, session: session, page: page)
    }

    /// What a delete takes along: "3 invoices" per to-many relationship that cascades.
    private static func cascades(of object: ManagedObject, catalog: FormCatalog) -> [String] {
        object.entity.relationships.filter { $0.isToMany && $0.deleteRule == .cascade }.compactMap { relationship in
            let related = (try? object.value(forKey: relationship.name)).flatMap { $0 as? [ManagedObject] } ?? []
            return related.isEmpty ? nil : "\(related.count) \(relationship.name)"
        }
    }

    private func delete(_ table: FormTable, _ request: Request, _ context: DashboardContext) async throws -> Response {
        let session = try context.requiredSession
        guard let pk = request.primaryKey else { return renderer.notFound(table.noun, session: session) }
        let scratchpad = stack.newScratchpad(name: "delete \(table.noun) \(pk)")
        let name: String? = try await scratchpad.perform {
            guard let id = try table.find(scratchpad, pk), let object = try? scratchpad.existingObject(with: id) else { return nil }
            scratchpad.delete(object)
            return table.title(object)
        }
        guard let name else { return renderer.notFound(table.noun, session: session) }
        let back = "/\(table.path)/\(pk)"
        switch await stack.save(scratchpad) {
        case .saved:
            sessions.setFlash("\(table.noun.prefix(1).uppercased() + table.noun.dropFirst()) \u{201C}\(name)\u{201D} deleted.",
                              for: session.id)
            return .redirect(to: "/\(table.path)")
        case .invalid(let failures):
            return refused(.unprocessableContent, "Not deleted", failures.map(\.message).joined(separator: " "), back, session)
        case .duplicate(let violation):
            return refused(.unprocessableContent, "Not deleted", violation.description, back, session)
        case .conflict:
            return refused(.conflict, "Changed meanwhile, not deleted",
                           "Someone changed or deleted this \(table.noun) while you were deciding, so nothing was deleted. Look at it again first.",
                           back, session)
        case .busy(let error):
            var response = refused(.serviceUnavailable, "Busy, not deleted",
                                   "The database cannot take the change right now: \(StoreFailureReason.describe(error)). Nothing was deleted; try again in a few seconds.",
                                   back, session)
            response.headers[.retryAfter] = "5"
            return response
        case .failed(let reason):
            return refused(.internalServerError, "Not deleted", "Nothing was deleted: the database refused it (\(reason)).",
                           back, session)
        }
    }

    private func refused(_ status: HTTPResponse.Status, _ title: String, _ message: String, _ back: String,
                         _ session: Session) -> Response {
        renderer.errorPage(status, title: title, message: message, link: back, linkText: "Back", session: session)
    }
}

/// The delete confirmation page.
struct DeletePage: Sendable {
    let what: String
    let name: String
    let action: String
    let cancelLink: String
    /// What goes with it ("3 invoices").
    let cascades: [String]
    let hasCascades: Bool
}
