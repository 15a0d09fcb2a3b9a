import Foundation
import HTTPTypes
import ObjectGraph
import WebServer

/// Saving a form up the chain: scratchpad → main → writer → disk, then 303 to the object's
/// page with a flash message; validation failures answer 422, conflicts 409.
extension Dashboard {
    /// What saving a form's scratchpad came to.
    enum SaveOutcome: Sendable {
        case saved(primaryKey: Int64, title: String)
        case invalid([FieldError])
        case conflict([MergeConflict])
    }

    func save(_ form: EditForm, policy: MergePolicy, kept: [String: String], visit: Visit) async throws -> Response {
        switch try await saveUpTheChain(form, policy: policy) {
        case .saved(let pk, let title):
            sessions.removeForm(form.id, from: visit.session.id, reason: .saved)
            let noun = form.kind == .client ? "Client" : "Invoice"
            sessions.setFlash("\(noun) \u{201C}\(title)\u{201D} saved.", for: visit.session.id)
            return .redirect(to: "\(form.kind.listPath)/\(pk)")
        case .invalid(let errors):
            inspector.recorder.saveRefused(form, errors: errors.map(\.message))
            guard let snapshot = try await snapshot(form) else { return deletedMeanwhile(form, visit: visit) }
            return await formPage(form, snapshot: snapshot, kept: kept, errors: errors, status: .unprocessableContent,
                                  visit: visit)
        case .conflict(let conflicts):
            inspector.recorder.saveRefused(form, conflicts: conflicts)
            return conflictPage(form, conflicts: conflicts, visit: visit)
        }
    }

    /// Saves the scratchpad into main, main into the writer, and the writer to the file (on
    /// the writer's queue: the main queue is free meanwhile). With `--persist immediate` (the
    /// default) the change is on disk when this returns `.saved`. A failed scratchpad save keeps its changes and leaves main untouched.
    func saveUpTheChain(_ form: EditForm, policy: MergePolicy) async throws -> SaveOutcome {
        let scratchpad = form.scratchpad, objectID = form.objectID
        do {
            let deferred = persistence.mode != .immediate
            try await scratchpad.perform {
                scratchpad.mergePolicy = policy
                defer { scratchpad.mergePolicy = .error }
                // With deferred persistence the writer saves later: ask for the primary keys
                // now, so the redirect can name the new object's page.
                if deferred { try scratchpad.obtainPermanentIDs(for: Array(scratchpad.insertedObjects)) }
                try scratchpad.save()
            }
        } catch SaveError.validationFailed(let failures) {
            // Failures of other objects (invoices added in a client's form) are named as such.
            return .invalid(failures.map { failure in
                failure.objectID == objectID
                    ? FieldError(field: failure.property ?? "", message: failure.message)
                    : FieldError(field: "invoices", message: "An invoice of this form: " + failure.message)
            })
        } catch SaveError.uniquenessViolation(let violation) {
            var field = violation.properties.first ?? ""
            if form.kind == .client && !ClientFormFields.inputs.contains(where: { $0.name == field }) { field = "invoices" }
            return .invalid([FieldError(field: field, message: Self.uniquenessMessage(violation.properties, violation.description))])
        } catch SaveError.mergeConflict(let conflicts) {
            return .conflict(conflicts)
        }
        let main = stack.main
        try await main.perform { try main.save() }
        try await persistence.writerChanged()
        let saved: (Int64, String)? = await scratchpad.perform {
            guard let object = scratchpad.registeredObject(for: objectID), let pk = object.objectID.primaryKey else {
                return nil
            }
            return (pk, (object as? Client)?.name ?? (object as? Invoice)?.identifier ?? "")
        }
        guard let saved else { throw HTTPError(.internalServerError, "The saved object has no primary key.") }
        return .saved(primaryKey: saved.0, title: saved.1)
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

    /// A conflict value as a page shows it: text without the quotes ObjectGraph puts around it.
    static func shown(_ value: String) -> String {
        value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"") ? String(value.dropFirst().dropLast()) : value
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

    static func uniquenessMessage(_ properties: [String], _ message: String) -> String {
        switch properties.first {
        case "email": "Another client already has this email address."
        case "identifier": "Another invoice already has this number: choose another."
        default: message
        }
    }

    private func conflictPage(_ form: EditForm, conflicts: [MergeConflict], visit: Visit) -> Response {
        let rows = conflicts.flatMap(\.properties).map {
            ConflictRow(property: $0.property, label: Self.label(of: $0.property), base: $0.base.description,
                        theirs: $0.theirs.description, ours: $0.ours.description)
        }
        let page = ConflictPage(heading: "Someone else changed this \(form.kind.rawValue)", action: form.path, rows: rows,
                                deletedElsewhere: conflicts.contains(where: \.deletedElsewhere),
                                startAgainLink: form.kind.listPath)
        return render("forms/conflict", chrome: chrome("Conflict", section: form.section, session: visit.session),
                      page: page, status: .conflict, visit: visit)
    }
}
