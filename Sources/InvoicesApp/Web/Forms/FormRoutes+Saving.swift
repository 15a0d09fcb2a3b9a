import Foundation
import HTTPTypes
import ObjectGraph
import WebServer

/// Saving a form: its scratchpad through main and the writer to the file, as one unit
/// (``InvoicesStack/save(_:policy:)``), then 303 to the object's page with a flash message.
/// Every other outcome keeps the form open with the visitor's input: 422 for invalid input and
/// taken values, 409 for a conflict (base / theirs / yours), 503 when the store is busy or down, 500 when
/// the store refused otherwise; each page says that nothing was saved.
extension FormRoutes {
    func save(_ form: EditForm, policy: MergePolicy, kept: [String: String] = [:], session: Session) async throws -> Response {
        guard let table = catalog.table(forEntity: form.entity) else { return gone(session) }
        switch await stack.save(form.scratchpad, policy: policy) {
        case .saved:
            return try await saved(form, table: table, session: session)
        case .invalid(let failures):
            let rows = await rowPositions(form, table: table)
            return try await refused(form, errors: failures.map { fieldError($0, in: form, table: table, rows: rows) },
                                     kept: kept, session: session)
        case .duplicate(let violation):
            return try await refused(form, errors: [duplicateError(violation, in: form, table: table)], kept: kept,
                                     session: session)
        case .conflict(let conflicts):
            recorder.saveRefused(form, conflicts: conflicts)
            return conflictPage(form, table: table, conflicts: conflicts, session: session)
        case .busy(let error):
            recorder.saveRefused(form, errors: ["\(error)"])
            var response = notSaved(form, status: .serviceUnavailable, title: "Busy, not saved",
                                    message: "The database cannot take the change right now: \(StoreFailureReason.describe(error)). "
                                        + "Nothing was saved; your form is kept. Try again in a few seconds.",
                                    session: session)
            response.headers[.retryAfter] = "5"
            return response
        case .failed(let reason):
            recorder.saveRefused(form, errors: [reason])
            return notSaved(form, status: .internalServerError, title: "Not saved",
                            message: "Your change was NOT saved: the database refused it (\(reason)). "
                                + "Your form is kept; try again, or tell whoever runs this server.",
                            session: session)
        }
    }

    private func saved(_ form: EditForm, table: FormTable, session: Session) async throws -> Response {
        let scratchpad = form.scratchpad, objectID = form.objectID
        let saved: (String, String)? = await scratchpad.perform {
            guard let object = scratchpad.registeredObject(for: objectID), let path = table.pagePath(object) else {
                return nil
            }
            return (path, table.title(object))
        }
        sessions.removeForm(form.id, from: session.id, reason: .saved)
        if let setAside = form.resolvesSetAside { stack.persistence.forget(setAside, because: "resolved and saved again") }
        guard let (path, title) = saved else {
            throw HTTPError(.internalServerError, "The object was saved, but has no primary key to show it by.")
        }
        sessions.setFlash("\(table.noun.prefix(1).uppercased() + table.noun.dropFirst()) \u{201C}\(title)\u{201D} saved.",
                          for: session.id)
        return .redirect(to: path)
    }

    /// A validation failure beside its field; one of an object added in this form points at
    /// the form's section for them.
    private func fieldError(_ failure: ValidationFailure, in form: EditForm, table: FormTable,
                            rows: [ObjectID: Int]) -> FieldError {
        if failure.objectID == form.objectID { return FieldError(field: failure.property ?? "", message: failure.message) }
        if let index = rows[failure.objectID], let formRows = table.rows {
            return formRows.fieldError(failure, rowIndex: index)
        }
        // An object further down (a line of an invoice added here) points at the first section.
        let nested = table.nested.first { $0.destination == failure.objectID.entityName } ?? table.nested.first
        let noun = catalog.table(forEntity: failure.objectID.entityName)?.noun ?? failure.objectID.entityName.lowercased()
        return FieldError(field: nested?.relationship ?? "", message: "In the \(noun) added here: " + failure.message)
    }

    /// The positions of the form's rows (``FormTable/rows``), read on the scratchpad.
    private func rowPositions(_ form: EditForm, table: FormTable) async -> [ObjectID: Int] {
        guard let rows = table.rows else { return [:] }
        let scratchpad = form.scratchpad, objectID = form.objectID
        return await scratchpad.perform {
            (try? scratchpad.existingObject(with: objectID)).map { rows.positions(in: $0) } ?? [:]
        }
    }

    private func duplicateError(_ violation: UniquenessViolation, in form: EditForm, table: FormTable) -> FieldError {
        let property = violation.properties.first ?? ""
        let owner = violation.objectID.map { $0 == form.objectID } ?? (violation.entity == form.entity)
        guard owner, let field = table.field(named: property) else {
            let nested = table.nested.first { $0.destination == violation.entity }
            return FieldError(field: nested?.relationship ?? property, message: duplicateMessage(violation))
        }
        return FieldError(field: field.name, message: field.duplicateMessage ?? violation.description)
    }

    /// What a page says of a taken value: the field's own words, else the violation's.
    func duplicateMessage(_ violation: UniquenessViolation) -> String {
        catalog.table(forEntity: violation.entity)?.field(named: violation.properties.first ?? "")?.duplicateMessage
            ?? violation.description
    }

    /// A page saying nothing was saved, with the way back to the (kept) form.
    private func notSaved(_ form: EditForm, status: HTTPResponse.Status, title: String, message: String,
                          session: Session) -> Response {
        renderer.errorPage(status, title: title, message: message, link: form.path, linkText: "Back to your form",
                           session: session)
    }

    func conflictPage(_ form: EditForm, table: FormTable, conflicts: [MergeConflict], session: Session) -> Response {
        let rows = conflicts.flatMap(\.properties).map {
            ConflictRow(property: $0.property, label: table.label(of: $0.property), base: ValueText.shown($0.base),
                        theirs: ValueText.shown($0.theirs), ours: ValueText.shown($0.ours))
        }
        let page = ConflictPage(heading: "Someone else changed this \(table.noun)", action: form.path, rows: rows,
                                deletedElsewhere: conflicts.contains(where: \.deletedElsewhere),
                                startAgainLink: "/\(table.path)")
        return renderer.page("forms/conflict", title: "Conflict", section: form.section, session: session, page: page,
                             status: .conflict)
    }
}

/// Values as pages show them in conflicts and set-aside changes.
enum ValueText {
    /// Days as days, nil and empty said so, references by entity and number.
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
}
