import Foundation
import HTTPTypes
import ObjectGraph
import WebServer

/// Changes the writer set aside (deferred persistence: the file refused them, everything else
/// was written). The object's page says so (``SetAsideNotice``); `/set-aside/{id}` lets a
/// visitor resolve one in a form (the change adopted by a new scratchpad, then saved as any
/// form is: a conflict shows the 409 page) or discard it.
struct SetAsideRoutes: Sendable {
    let forms: FormRoutes

    private var stack: InvoicesStack { forms.stack }
    private var renderer: PageRenderer { forms.renderer }

    func addRoutes(to router: Router) {
        router.group(context: DashboardContext.self).adding(SessionMiddleware(sessions: forms.sessions, creating: true))
            .get("/set-aside/:id") { request, context in try show(request, context) }
        router.group(context: DashboardContext.self).limitingBodies(to: FormRoutes.maximumFormSize)
            .adding(SessionMiddleware(sessions: forms.sessions, creating: false))
            .adding(CSRFCheck(renderer: renderer))
            .post("/set-aside/:id") { request, context in try await submit(request, context) }
    }

    private func show(_ request: Request, _ context: DashboardContext) throws -> Response {
        let session = try context.requiredSession
        guard let change = stack.persistence.setAsideChange(id: request.parameters["id"] ?? "") else {
            return settledAlready(session)
        }
        let notice = SetAsideNotice(change, catalog: forms.catalog)
        let objectLink = change.kind == .inserted ? nil : objectPage(change)
        let page = SetAsidePage(heading: "\(change.entity) \(change.primaryKey.map(String.init) ?? ""): not on disk",
                                reason: notice.reason, setAsideAt: notice.setAsideAt, rows: notice.rows,
                                action: notice.link, objectLink: objectLink, entity: noun(change))
        return renderer.page("set-aside", title: "Not on disk", section: path(change), session: session, page: page)
    }

    private func submit(_ request: Request, _ context: DashboardContext) async throws -> Response {
        let session = try context.requiredSession
        guard let change = stack.persistence.setAsideChange(id: request.parameters["id"] ?? "") else {
            return settledAlready(session)
        }
        switch context.form?["action"] {
        case "discard":
            stack.persistence.forget(change.id, because: "discarded by a visitor")
            forms.sessions.setFlash("The set-aside change was discarded; the file's values stand.", for: session.id)
            return .redirect(to: change.kind == .inserted ? "/\(path(change))" : objectPage(change) ?? "/\(path(change))")
        case "resolve":
            return try await resolveInForm(change, session: session)
        default:
            throw HTTPError(.badRequest, "Choose resolve or discard.")
        }
    }

    /// Opens a form whose scratchpad adopts the change, and saves it: a conflict or a taken
    /// value shows as for any form, with the form open to settle it.
    private func resolveInForm(_ change: SetAsideChange, session: Session) async throws -> Response {
        guard let table = forms.catalog.table(forEntity: change.entity) else { return settledAlready(session) }
        let scratchpad = forms.formScratchpad("form: set-aside \(change.objectID)", for: session)
        try await scratchpad.perform(schedule: .enqueued) { try scratchpad.adopt(change.changes) }
        let form = EditForm(id: Tokens.random(), entity: table.entityName, noun: table.noun, scratchpad: scratchpad,
                            objectID: change.objectID, isNew: change.kind == .inserted,
                            returnPath: objectPage(change) ?? "/\(table.path)", section: table.path,
                            resolvesSetAside: change.id)
        forms.sessions.add(form, to: session.id)
        if let refused = await forms.persist(form, session: session) { return refused }
        let response = try await forms.save(form, policy: .error, session: session)
        guard forms.sessions.peek(session.id)?.form(form.id) != nil else { return response }
        return await forms.persist(form, session: session, answering: response)
    }

    private func path(_ change: SetAsideChange) -> String {
        forms.catalog.table(forEntity: change.entity)?.path ?? "clients"
    }

    private func noun(_ change: SetAsideChange) -> String {
        forms.catalog.table(forEntity: change.entity)?.noun ?? change.entity.lowercased()
    }

    private func objectPage(_ change: SetAsideChange) -> String? {
        change.primaryKey.map { "/\(path(change))/\($0)" }
    }

    private func settledAlready(_ session: Session?) -> Response {
        renderer.errorPage(.gone, title: "Already settled", message: "This set-aside change was resolved or discarded already.",
                           link: "/clients", linkText: "Back to the clients", session: session)
    }
}

/// A set-aside change as a page shows it.
struct SetAsideNotice: Sendable {
    let link: String
    /// Why the file refused it, in words.
    let reason: String
    let setAsideAt: String
    let rows: [ConflictRow]

    init(_ change: SetAsideChange, catalog: FormCatalog) {
        link = "/set-aside/\(change.id)"
        let noun = catalog.table(forEntity: change.entity)?.noun ?? change.entity.lowercased()
        switch change.reason {
        case .conflict(let conflict) where conflict.deletedElsewhere:
            reason = "It was deleted in the file (by another server or process) after this change was made"
        case .conflict:
            reason = "Someone changed the same \(noun) in the file (another server or process) after this change was made"
        case .duplicate(let violation):
            reason = (catalog.table(forEntity: violation.entity)?.field(named: violation.properties.first ?? "")?
                .duplicateMessage ?? violation.description).replacingOccurrences(of: ": choose another.", with: "")
        }
        setAsideAt = change.setAsideAt.formatted(.iso8601)
        rows = change.properties.filter { !$0.yours.isReferenceList }.map {
            ConflictRow(property: $0.name, label: catalog.label(of: $0.name, in: change.entity), base: ValueText.shown($0.base),
                        theirs: $0.theirs.map(ValueText.shown) ?? (change.kind == .inserted ? "" : "unchanged"),
                        ours: ValueText.shown($0.yours))
        }
    }
}

/// `/set-aside/{id}`.
struct SetAsidePage: Sendable {
    let heading: String
    let reason: String
    let setAsideAt: String
    let rows: [ConflictRow]
    let action: String
    let objectLink: String?
    let entity: String
}
