import Foundation
import HTTPTypes
import ObjectGraph
import WebServer

/// Saving a form: its scratchpad through main and the writer to the file, as one unit
/// (``InvoicesStack/save(_:policy:)``), then 303 to the object's page with a flash message.
/// Every other outcome keeps the form open with the visitor's input: 422 for invalid input
/// and taken values, 409 for a conflict (base / theirs / yours), 503 when the file is busy,
/// 500 when the store refused otherwise; each page says that nothing was saved.
extension Dashboard {
    func save(_ form: EditForm, policy: MergePolicy, kept: [String: String], visit: Visit) async throws -> Response {
        switch await stack.save(form.scratchpad, policy: policy) {
        case .saved:
            return try await saved(form, visit: visit)
        case .invalid(let failures):
            // Failures of other objects (invoices added in a client's form) are named as such.
            let errors = failures.map { failure in
                failure.objectID == form.objectID
                    ? FieldError(field: failure.property ?? "", message: failure.message)
                    : FieldError(field: "invoices", message: "An invoice of this form: " + failure.message)
            }
            return try await refused(form, errors: errors, kept: kept, visit: visit)
        case .duplicate(let violation):
            var field = violation.properties.first ?? ""
            if form.kind == .client && !ClientFormFields.inputs.contains(where: { $0.name == field }) { field = "invoices" }
            return try await refused(form, errors: [FieldError(field: field, message: Self.uniquenessMessage(violation))],
                                     kept: kept, visit: visit)
        case .conflict(let conflicts):
            inspector.recorder.saveRefused(form, conflicts: conflicts)
            return conflictPage(form, conflicts: conflicts, visit: visit)
        case .busy(let error):
            inspector.recorder.saveRefused(form, errors: ["\(error)"])
            var response = notSaved(form, status: .serviceUnavailable, title: "Busy, not saved",
                                    message: "The database is busy: another program held it for longer than this server waits. "
                                        + "Nothing was saved; your form is kept. Try again in a few seconds.",
                                    visit: visit)
            response.headers[.retryAfter] = "5"
            return response
        case .failed(let reason):
            inspector.recorder.saveRefused(form, errors: [reason])
            return notSaved(form, status: .internalServerError, title: "Not saved",
                            message: "Your change was NOT saved: the database refused it (\(reason)). "
                                + "Your form is kept; try again, or tell whoever runs this server.",
                            visit: visit)
        }
    }

    private func saved(_ form: EditForm, visit: Visit) async throws -> Response {
        let scratchpad = form.scratchpad, objectID = form.objectID
        let saved: (Int64, String)? = await scratchpad.perform {
            guard let object = scratchpad.registeredObject(for: objectID), let pk = object.objectID.primaryKey else {
                return nil
            }
            return (pk, (object as? Client)?.name ?? (object as? Invoice)?.identifier ?? "")
        }
        sessions.removeForm(form.id, from: visit.session.id, reason: .saved)
        if let setAside = form.resolvesSetAside { stack.persistence.forget(setAside, because: "resolved and saved again") }
        guard let (pk, title) = saved else {
            throw HTTPError(.internalServerError, "The object was saved, but has no primary key to show it by.")
        }
        let noun = form.kind == .client ? "Client" : "Invoice"
        sessions.setFlash("\(noun) \u{201C}\(title)\u{201D} saved.", for: visit.session.id)
        return .redirect(to: "\(form.kind.listPath)/\(pk)")
    }

    /// The form again, with the errors (422).
    private func refused(_ form: EditForm, errors: [FieldError], kept: [String: String], visit: Visit) async throws -> Response {
        inspector.recorder.saveRefused(form, errors: errors.map(\.message))
        guard let snapshot = try await snapshot(form) else { return deletedMeanwhile(form, visit: visit) }
        return await formPage(form, snapshot: snapshot, kept: kept, errors: errors, status: .unprocessableContent,
                              visit: visit)
    }

    /// A page saying nothing was saved, with the way back to the (kept) form.
    private func notSaved(_ form: EditForm, status: HTTPResponse.Status, title: String, message: String,
                          visit: Visit) -> Response {
        errorPage(status, title: title, message: message, link: form.path, linkText: "Back to your form", visit: visit)
    }

    /// The label a form shows for a model property.
    static func label(of property: String) -> String {
        if let input = ClientFormFields.inputs.first(where: { $0.name == property }) { return input.label }
        switch property {
        case "identifier": return "Invoice number"
        case "issueDate": return "Issue date"
        case "dueDate": return "Due date"
        default: return property.prefix(1).uppercased() + property.dropFirst()
        }
    }

    /// A value as a form or conflict page shows it: days as days, nil and empty said so.
    static func shown(_ value: InspectedValue) -> String {
        switch value {
        case .null: return "(none)"
        case .string(let text): return text.isEmpty ? "(empty)" : text
        case .date(let date): return CalendarDay(date).description
        case .decimal(let amount): return "\(amount)"
        case .reference(let id): return id.primaryKey.map { "\(id.entityName) \($0)" } ?? "a new \(id.entityName.lowercased())"
        default: return value.description
        }
    }

    /// Resolves a conflict field by field: each `pick-{property}` that says `theirs` takes
    /// main's current value into the scratchpad, then the save keeps the scratchpad's values
    /// (`.mergeByPropertyObjectTrump`), which are now the visitor's choices.
    func resolve(_ form: EditForm, fields: QueryParameters, visit: Visit) async throws -> Response {
        let theirs = fields.filter { $0.name.hasPrefix("pick-") && $0.value == "theirs" }.map { String($0.name.dropFirst(5)) }
        if !theirs.isEmpty {
            let main = stack.main, objectID = form.objectID
            let current: [String: String]? = await main.perform {
                guard let object = try? main.existingObject(with: objectID) else { return nil }
                if let client = object as? Client { return ClientFormFields.values(of: client) }
                if let invoice = object as? Invoice { return InvoiceFormFields.values(of: invoice) }
                return nil
            }
            guard let current else { return deletedMeanwhile(form, visit: visit) }
            var input: [String: String] = [:]
            for property in theirs { if let value = current[property] { input[property] = value } }
            let scratchpad = form.scratchpad
            let applied = input
            await scratchpad.perform {
                guard let object = try? scratchpad.existingObject(with: objectID) else { return }
                if let client = object as? Client { _ = ClientFormFields.apply(applied, to: client) }
                if let invoice = object as? Invoice { _ = InvoiceFormFields.apply(applied, to: invoice, in: scratchpad) }
            }
        }
        return try await save(form, policy: .mergeByPropertyObjectTrump, kept: [:], visit: visit)
    }

    static func uniquenessMessage(_ violation: UniquenessViolation) -> String {
        switch violation.properties.first {
        case "email": "Another client already has this email address."
        case "identifier": "Another invoice already has this number: choose another."
        default: violation.description
        }
    }

    func conflictPage(_ form: EditForm, conflicts: [MergeConflict], visit: Visit) -> Response {
        let rows = conflicts.flatMap(\.properties).map {
            ConflictRow(property: $0.property, label: Self.label(of: $0.property), base: Self.shown($0.base),
                        theirs: Self.shown($0.theirs), ours: Self.shown($0.ours))
        }
        let page = ConflictPage(heading: "Someone else changed this \(form.kind.rawValue)", action: form.path, rows: rows,
                                deletedElsewhere: conflicts.contains(where: \.deletedElsewhere),
                                startAgainLink: form.kind.listPath)
        return render("forms/conflict", chrome: chrome("Conflict", section: form.section, session: visit.session),
                      page: page, status: .conflict, visit: visit)
    }
}
