import Foundation
import HTTPTypes
import ObjectGraph
import WebServer

/// The edit forms of every editable entity (``FormCatalog``): opening a scratchpad
/// (`/{path}/new`, `/{path}/{pk}/edit`), showing it (`GET /forms/{id}`) and applying, saving or
/// cancelling it (`POST /forms/{id}`, behind ``CSRFCheck``).
///
/// A form's scratchpad is a child of main made for it; it does not merge main's later saves,
/// so it keeps the values the visitor was shown as its base, and a save after someone else
/// changed the same property is a conflict (409), not a silent overwrite.
struct FormRoutes: Sendable {
    let stack: InvoicesStack
    let renderer: PageRenderer
    let sessions: SessionStore
    let catalog: FormCatalog
    /// The inspector's timeline hears of refused saves.
    let recorder: ContextActivityRecorder

    /// Open forms in the database, for any server to continue.
    var storage: FormStorage { FormStorage(stack: stack, sessions: sessions, catalog: catalog) }

    func addRoutes(to router: Router) {
        let opening = router.group(context: DashboardContext.self)
            .adding(SessionMiddleware(sessions: sessions, creating: true))
        for table in catalog.tables {
            opening.get("/\(table.path)/new") { request, context in try await openNew(table, request, context) }
            opening.get("/\(table.path)/:pk/edit") { request, context in try await openEdit(table, request, context) }
        }
        router.group(context: DashboardContext.self).adding(SessionMiddleware(sessions: sessions, creating: false))
            .get("/forms/:id") { request, context in try await show(request, context) }
        router.group(context: DashboardContext.self).limitingBodies(to: Self.maximumFormSize)
            .adding(SessionMiddleware(sessions: sessions, creating: false)).adding(CSRFCheck(renderer: renderer))
            .post("/forms/:id") { request, context in try await submit(request, context) }
    }

    /// The largest edit form accepted (413 above it, before its body is read): a client with
    /// every field at its longest, percent-encoded, is about 6 KB; an invoice with 2,000
    /// characters of notes in any script at most 24 KB.
    static let maximumFormSize = 64 << 10

    // MARK: Opening

    /// A scratchpad for a form, holding what the visitor is shown as its base. Its saves are
    /// recorded in history under the visitor's label and the form's name.
    func formScratchpad(_ name: String, for session: Session) -> ManagedObjectContext {
        storage.scratchpad(name, for: session)
    }

    private func openNew(_ table: FormTable, _ request: Request, _ context: DashboardContext) async throws -> Response {
        let session = try context.requiredSession
        let scratchpad = formScratchpad("form: new \(table.noun)", for: session)
        let parameters = request.query.first
        let objectID = await scratchpad.perform { table.makeNew(scratchpad, parameters) }
        // Back to where the form was opened from: the client's page for `?client=3`, else the list.
        let returnPath = catalog.tables.lazy.compactMap { other in
            parameters[other.noun].flatMap { Int64($0) }.map { "/\(other.path)/\($0)" }
        }.first ?? "/\(table.path)"
        return await open(EditForm(id: Tokens.random(), entity: table.entityName, noun: table.noun, scratchpad: scratchpad,
                                   objectID: objectID, isNew: true, returnPath: returnPath, section: table.path),
                          session: session)
    }

    private func openEdit(_ table: FormTable, _ request: Request, _ context: DashboardContext) async throws -> Response {
        let session = try context.requiredSession
        guard let pk = request.primaryKey else { return renderer.notFound(table.noun, session: session) }
        let scratchpad = formScratchpad("form: edit \(table.noun) \(pk)", for: session)
        guard let objectID = try await scratchpad.perform({ try table.find(scratchpad, pk) }) else {
            return renderer.notFound(table.noun, session: session)
        }
        return await open(EditForm(id: Tokens.random(), entity: table.entityName, noun: table.noun, scratchpad: scratchpad,
                                   objectID: objectID, isNew: false, returnPath: "/\(table.path)/\(pk)",
                                   section: table.path),
                          session: session)
    }

    /// Adds the form to the session and writes it to the database (with the values the
    /// visitor is about to read as its bases) before sending the visitor to it.
    func open(_ form: EditForm, session: Session) async -> Response {
        sessions.add(form, to: session.id)
        if let refused = await persist(form, session: session) { return refused }
        return .redirect(to: form.path)
    }

    /// Writes the form's scratchpad to the database; nil when written (or nothing to write),
    /// else a 503 page: the input is then held by this server only.
    func persist(_ form: EditForm, session: Session) async -> Response? {
        do {
            try await storage.persist(form, session: session.id)
            return nil
        } catch {
            sessions.logger.error("Writing form \(form.ownerKey.prefix(6))… to the database failed: \(error)")
            return unavailable(session, reason: "\(error)")
        }
    }

    /// `response`, once the form's scratchpad is in the database; a 503 when it cannot be
    /// written, unless `response` already says the request failed on the server's side (a
    /// busy file: the same cause, and its page says more).
    func persist(_ form: EditForm, session: Session, answering response: Response) async -> Response {
        guard let refused = await persist(form, session: session) else { return response }
        return response.status.kind == .serverError ? response : refused
    }

    /// The database could not be read or written: 503, try again.
    func unavailable(_ session: Session?, reason: String) -> Response {
        var response = renderer.errorPage(.serviceUnavailable, title: "Database unavailable",
                                          message: "Open forms are kept in the database, and it cannot be reached just now (\(reason)). "
                                              + "Try again in a few seconds; what was stored before is kept.",
                                          link: "/clients", linkText: "Back to the clients", session: session)
        response.headers[.retryAfter] = "5"
        return response
    }

    // MARK: Showing

    private func show(_ request: Request, _ context: DashboardContext) async throws -> Response {
        guard let visitor = context.session else { return gone(nil) }
        let form: EditForm, session: Session
        switch await storage.form(request.parameters["id"] ?? "", in: visitor) {
        case .open(let found, let holder): (form, session) = (found, holder)
        case .closed: return gone(visitor)
        case .unavailable(let error): return unavailable(visitor, reason: "\(error)")
        }
        guard let snapshot = try await snapshot(form) else { return deletedMeanwhile(form, session: session) }
        return await formPage(form, snapshot: snapshot, errors: [], status: .ok, session: session)
    }

    /// The form object's values and the choices of its select fields, read on the scratchpad's
    /// queue; nil when the object was deleted elsewhere.
    func snapshot(_ form: EditForm) async throws -> FormSnapshot? {
        guard let table = catalog.table(forEntity: form.entity) else { return nil }
        let scratchpad = form.scratchpad, objectID = form.objectID
        return try await scratchpad.perform { () throws -> FormSnapshot? in
            guard let object = try? scratchpad.existingObject(with: objectID) else { return nil }
            return FormSnapshot(values: table.values(of: object), choices: try table.choices(in: scratchpad),
                                title: table.title(object), rowTotals: table.rows?.totals(object) ?? [])
        }
    }

    /// The form page: the snapshot's values, with `kept` (typed text that could not be
    /// applied) on top, and the errors beside their fields and in the summary.
    func formPage(_ form: EditForm, snapshot: FormSnapshot, kept: [String: String] = [:], errors: [FieldError],
                  status: HTTPResponse.Status, session: Session) async -> Response {
        guard let table = catalog.table(forEntity: form.entity) else { return gone(session) }
        let values = snapshot.values.merging(kept) { _, typed in typed }
        var byField: [String: String] = [:]
        for error in errors where byField[error.field] == nil { byField[error.field] = error.message }
        let isNested = form.parentFormID != nil
        let fields = table.formFields(values: values, errors: byField, choices: snapshot.choices, hiding: hidden(form))
        let heading = (form.isNew ? "New \(table.noun)" : "Edit \(table.noun) \(snapshot.title)")
            + (isNested ? " (saved with its \(owner(of: form)?.noun ?? "owner"))" : "")
        let page = FormPage(heading: heading, action: form.path, fields: fields, errors: errors, hasErrors: !errors.isEmpty,
                            cancelLabel: "Cancel", saveLabel: isNested ? "Done" : "Save",
                            nested: await nestedSections(of: form, table: table, in: session), isNested: isNested,
                            rows: table.rows?.section(values: values, errors: byField, totals: snapshot.rowTotals))
        return renderer.page("forms/edit", title: (errors.isEmpty ? "" : "Error: ") + heading, section: form.section,
                             session: session, page: page, status: status)
    }

    func gone(_ session: Session?) -> Response {
        renderer.errorPage(.gone, title: "Form closed",
                           message: "This form is closed: it was saved or cancelled, or it expired. Its changes are no longer held here.",
                           link: "/clients", linkText: "Start again from the client list", session: session)
    }

    func deletedMeanwhile(_ form: EditForm, session: Session) -> Response {
        sessions.removeForm(form.id, from: session.id)
        return renderer.errorPage(.gone, title: "Deleted meanwhile",
                                  message: "This \(form.noun) was deleted by someone else while the form was open.",
                                  link: "/\(form.section)", linkText: "Back to the list", session: session)
    }
}

/// What a form's page is read from: the scratchpad object's values as text, and the choices
/// of its select fields. Read on the scratchpad's queue.
struct FormSnapshot: Sendable {
    let values: [String: String]
    let choices: [String: [(value: String, label: String)]]
    let title: String
    /// The totals under the form's rows (``FormRows``), if it has rows.
    let rowTotals: [(label: String, value: String)]
}

extension Request {
    /// The primary key in the route's `:pk`, or nil when it is not a positive number.
    var primaryKey: Int64? {
        guard let text = parameters["pk"], let pk = Int64(text), pk > 0 else { return nil }
        return pk
    }
}

extension QueryParameters {
    /// The parameters as a dictionary (the first of a repeated name wins).
    var first: [String: String] {
        var result: [String: String] = [:]
        for pair in self where result[pair.name] == nil { result[pair.name] = pair.value }
        return result
    }
}
