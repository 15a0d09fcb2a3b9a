import Foundation
import HTTPTypes
import ObjectGraph
import WebServer

/// The edit forms: opening a scratchpad (`/clients/new`, `/clients/{pk}/edit`, the same for
/// invoices), showing it (`GET /forms/{id}`) and applying, saving or cancelling it
/// (`POST /forms/{id}`).
extension Dashboard {
    typealias Visit = (session: Session, setCookie: Bool)

    func addFormRoutes(to router: Router) {
        router.get("/clients/new") { [self] request in try await openNew(.client, request) }
        router.get("/invoices/new") { [self] request in try await openNew(.invoice, request) }
        router.get("/clients/:pk/edit") { [self] request in try await openEdit(.client, request) }
        router.get("/invoices/:pk/edit") { [self] request in try await openEdit(.invoice, request) }
        router.get("/forms/:id") { [self] request in try await showForm(request) }
        router.post("/forms/:id") { [self] request in try await submitForm(request) }
    }

    // MARK: Opening

    /// A scratchpad for a form. It does not merge main's later saves: it keeps the values
    /// the visitor was shown as their base, so a save after someone else changed the same
    /// property is a conflict (409), not a silent overwrite of a change they never saw.
    func formScratchpad(_ name: String) -> ManagedObjectContext {
        let scratchpad = stack.newScratchpad(name: name)
        scratchpad.automaticallyMergesChangesFromParent = false
        return scratchpad
    }

    private func openNew(_ kind: EditForm.Kind, _ request: Request) async throws -> Response {
        let visit = visit(request, needsSession: true)
        let scratchpad = formScratchpad("form: new \(kind.rawValue)")
        let clientPK = Self.parameters(request)["client"].flatMap { Int64($0) }
        let objectID: ObjectID = await scratchpad.perform {
            switch kind {
            case .client:
                let client = Client(context: scratchpad)
                client.name = ""
                return client.objectID
            case .invoice:
                let invoice = Invoice(context: scratchpad)
                invoice.identifier = ""
                if let clientPK, let client = try? scratchpad.existingObject(Client.self, primaryKey: clientPK) {
                    invoice.client = client
                }
                return invoice.objectID
            }
        }
        let returnPath = kind == .invoice && clientPK != nil ? "/clients/\(clientPK ?? 0)" : kind.listPath
        return open(EditForm(id: SessionStore.randomToken(), kind: kind, scratchpad: scratchpad, objectID: objectID,
                             isNew: true, returnPath: returnPath), visit: visit)
    }

    private func openEdit(_ kind: EditForm.Kind, _ request: Request) async throws -> Response {
        let visit = visit(request, needsSession: true)
        guard let pk = Self.primaryKey(request) else { return notFound(kind.rawValue, visit: visit) }
        let scratchpad = formScratchpad("form: \(kind.rawValue) \(pk)")
        let objectID: ObjectID? = try await scratchpad.perform {
            switch kind {
            case .client: try scratchpad.existingObject(Client.self, primaryKey: pk)?.objectID
            case .invoice: try scratchpad.existingObject(Invoice.self, primaryKey: pk)?.objectID
            }
        }
        guard let objectID else { return notFound(kind.rawValue, visit: visit) }
        return open(EditForm(id: SessionStore.randomToken(), kind: kind, scratchpad: scratchpad, objectID: objectID,
                             isNew: false, returnPath: "\(kind.listPath)/\(pk)"), visit: visit)
    }

    private func open(_ form: EditForm, visit: Visit) -> Response {
        sessions.add(form, to: visit.session.id)
        var response = Response.redirect(to: form.path)
        if visit.setCookie { response.setCookie(sessionCookie(visit.session.id)) }
        return response
    }

    // MARK: Showing

    private func showForm(_ request: Request) async throws -> Response {
        let visit = visit(request)
        guard let form = visit.session.form(request.parameters["id"] ?? "") else { return gone(visit: visit) }
        guard let snapshot = try await snapshot(form) else { return deletedMeanwhile(form, visit: visit) }
        return await formPage(form, snapshot: snapshot, errors: [], status: .ok, visit: visit)
    }

    /// The form object's values, read on the scratchpad's queue; nil when the object was
    /// deleted elsewhere.
    func snapshot(_ form: EditForm) async throws -> FormSnapshot? {
        let scratchpad = form.scratchpad, objectID = form.objectID, kind = form.kind
        return try await scratchpad.perform { () throws -> FormSnapshot? in
            guard let object = try? scratchpad.existingObject(with: objectID) else { return nil }
            if let client = object as? Client {
                return FormSnapshot(values: ClientFormFields.values(of: client), clients: [], title: client.name)
            }
            if let invoice = object as? Invoice, kind == .invoice {
                return FormSnapshot(values: InvoiceFormFields.values(of: invoice),
                                    clients: try InvoiceFormFields.clientChoices(in: scratchpad),
                                    title: invoice.identifier)
            }
            return nil
        }
    }

    /// The form page: the snapshot's values, with `kept` (typed text that could not be
    /// applied) on top, and the errors beside their fields and in the summary.
    func formPage(_ form: EditForm, snapshot: FormSnapshot, kept: [String: String] = [:], errors: [FieldError],
                  status: HTTPResponse.Status, visit: Visit) async -> Response {
        let values = snapshot.values.merging(kept) { _, typed in typed }
        var byField: [String: String] = [:]
        for error in errors where byField[error.field] == nil { byField[error.field] = error.message }
        let isNested = form.parentFormID != nil
        let fields = form.kind == .client
            ? ClientFormFields.fields(values: values, errors: byField)
            : InvoiceFormFields.fields(values: values, errors: byField, clients: snapshot.clients)
                .filter { !isNested || $0.name != "client" }
        let noun = form.kind == .client ? "client" : "invoice"
        let heading = form.isNew ? "New \(noun)" : "Edit \(noun) \(snapshot.title)"
        let nested = form.kind == .client ? await nestedInvoices(of: form, in: visit.session) : []
        let page = FormPage(heading: heading + (isNested ? " (saved with its client)" : ""), action: form.path,
                            fields: fields, errors: errors, hasErrors: !errors.isEmpty, cancelLabel: "Cancel",
                            saveLabel: isNested ? "Done" : "Save", isClientForm: form.kind == .client,
                            nestedInvoices: nested, hasNestedInvoices: !nested.isEmpty, isNested: isNested)
        let title = (errors.isEmpty ? "" : "Error: ") + heading
        return render("forms/edit", chrome: chrome(title, section: form.section, session: visit.session),
                      page: page, status: status, visit: visit)
    }

    func gone(visit: Visit) -> Response {
        errorPage(.gone, title: "Form closed",
                  message: "This form is closed: it was saved or cancelled, or it expired. Its changes are no longer held here.",
                  link: "/clients", linkText: "Start again from the client list", visit: visit)
    }

    func deletedMeanwhile(_ form: EditForm, visit: Visit) -> Response {
        sessions.removeForm(form.id, from: visit.session.id)
        return errorPage(.gone, title: "Deleted meanwhile",
                         message: "This \(form.kind.rawValue) was deleted by someone else while the form was open.",
                         link: form.kind.listPath, linkText: "Back to the list", visit: visit)
    }

    // MARK: Submitting

    private func submitForm(_ request: Request) async throws -> Response {
        let submission: Submission
        switch try checkedPost(request) {
        case .refused(let response): return response
        case .accepted(let accepted): submission = accepted
        }
        let visit: Visit = (submission.session, false)
        guard let form = visit.session.form(request.parameters["id"] ?? "") else { return gone(visit: visit) }
        let action = submission.fields["action"] ?? ""
        switch action {
        case "cancel" where form.parentFormID != nil:
            return await cancelNestedInvoice(form, visit: visit)
        case "cancel":
            sessions.removeForm(form.id, from: visit.session.id, reason: .cancelled)
            sessions.setFlash("Changes discarded.", for: visit.session.id)
            return .redirect(to: form.returnPath)
        case "keep-mine":
            return try await save(form, policy: .mergeByPropertyObjectTrump, kept: [:], visit: visit)
        case "take-theirs":
            return try await save(form, policy: .mergeByPropertyStoreTrump, kept: [:], visit: visit)
        case "resolve":
            return try await resolve(form, fields: submission.fields, visit: visit)
        default:
            break
        }
        var typed = Self.fieldInput(submission.fields, kind: form.kind)
        if form.parentFormID != nil { typed["client"] = nil }   // fixed: the client being edited
        let input = typed
        if action == "add-invoice" && form.kind == .client {
            return await addNestedInvoice(to: form, input: input, visit: visit)
        }
        let scratchpad = form.scratchpad, objectID = form.objectID, kind = form.kind
        let inputErrors: [FieldInputError]? = await scratchpad.perform {
            guard let object = try? scratchpad.existingObject(with: objectID) else { return nil }
            switch kind {
            case .client: return (object as? Client).map { ClientFormFields.apply(input, to: $0) } ?? []
            case .invoice: return (object as? Invoice).map { InvoiceFormFields.apply(input, to: $0, in: scratchpad) } ?? []
            }
        }
        guard let inputErrors else { return deletedMeanwhile(form, visit: visit) }
        let kept = Dictionary(inputErrors.map { ($0.property, input[$0.property] ?? "") }) { first, _ in first }
        if !inputErrors.isEmpty || action != "save" {
            if inputErrors.isEmpty { return .redirect(to: form.path) }
            guard let snapshot = try await snapshot(form) else { return deletedMeanwhile(form, visit: visit) }
            let errors = inputErrors.map { FieldError(field: $0.property, message: $0.message) }
            return await formPage(form, snapshot: snapshot, kept: kept, errors: errors, status: .unprocessableContent,
                                  visit: visit)
        }
        if form.parentFormID != nil { return finishNestedInvoice(form) }
        return try await save(form, policy: .error, kept: kept, visit: visit)
    }

    /// The submitted values of the form's own inputs.
    static func fieldInput(_ fields: QueryParameters, kind: EditForm.Kind) -> [String: String] {
        let names = kind == .client
            ? ClientFormFields.inputs.map(\.name)
            : ["identifier", "client", "amount", "currency", "status", "issueDate", "dueDate", "notes"]
        var input: [String: String] = [:]
        for name in names { if let value = fields[name] { input[name] = value } }
        return input
    }
}
