import Foundation
import ObjectGraph
import WebServer

/// `POST /forms/{id}`: apply the typed fields to the scratchpad, then save, cancel, add a
/// nested object, or settle a conflict, as `action` says.
extension FormRoutes {
    /// Answers after the form's scratchpad, if the form is still open, is in the database.
    func submit(_ request: Request, _ context: DashboardContext) async throws -> Response {
        let visitor = try context.requiredSession
        let form: EditForm, session: Session
        switch await storage.form(request.parameters["id"] ?? "", in: visitor) {
        case .open(let found, let holder): (form, session) = (found, holder)
        case .closed: return gone(visitor)
        case .unavailable(let error): return unavailable(visitor, reason: "\(error)")
        }
        let response = try await submit(form, fields: context.form ?? FormData(), session: session)
        // Still open (kept after an error, a row added, a nested form done…): store what it holds now.
        guard sessions.peek(session.id)?.form(form.ownerKey) != nil else { return response }
        return await persist(form, session: session, answering: response)
    }

    private func submit(_ form: EditForm, fields: FormData, session: Session) async throws -> Response {
        guard let table = catalog.table(forEntity: form.entity) else { return gone(session) }
        let action = fields["action"] ?? ""
        switch action {
        case "cancel" where form.parentFormID != nil:
            return await cancelNested(form, session: session)
        case "cancel":
            sessions.removeForm(form.id, from: session.id, reason: .cancelled)
            sessions.setFlash("Changes discarded.", for: session.id)
            return .redirect(to: form.returnPath)
        case "keep-mine":
            return try await save(form, policy: .mergeByPropertyObjectTrump, session: session)
        case "take-theirs":
            return try await save(form, policy: .mergeByPropertyStoreTrump, session: session)
        case "resolve":
            return try await resolve(form, table: table, fields: fields, session: session)
        default:
            break
        }
        let input = table.input(from: { fields[$0] }, skipping: hidden(form))
        if let nested = table.nested.first(where: { action == addAction($0) }) {
            return await addNested(nested, to: form, input: input, session: session)
        }
        let scratchpad = form.scratchpad, objectID = form.objectID
        let inputErrors: [FieldInputError]? = await scratchpad.perform {
            guard let object = try? scratchpad.existingObject(with: objectID) else { return nil }
            return table.apply(input, to: object, in: scratchpad, action: action)
        }
        guard let inputErrors else { return deletedMeanwhile(form, session: session) }
        let kept = Dictionary(inputErrors.map { ($0.property, input[$0.property] ?? "") }) { first, _ in first }
        if !inputErrors.isEmpty {
            return try await refused(form, errors: inputErrors.map { FieldError(field: $0.property, message: $0.message) },
                                     kept: kept, session: session, recording: false)
        }
        guard action == "save" else { return .redirect(to: form.path) }   // applied, a row added, moved…
        if form.parentFormID != nil { return .redirect(to: form.returnPath) }   // saved with its owner
        return try await save(form, policy: .error, kept: kept, session: session)
    }

    /// Resolves a conflict field by field: each `pick-{property}` that says `theirs` takes
    /// main's current value into the scratchpad, then the save keeps the scratchpad's values
    /// (`.mergeByPropertyObjectTrump`), which are now the visitor's choices.
    private func resolve(_ form: EditForm, table: FormTable, fields: FormData, session: Session) async throws -> Response {
        let theirs = fields.fields.filter { $0.name.hasPrefix("pick-") && $0.value == "theirs" }.map { String($0.name.dropFirst(5)) }
        if !theirs.isEmpty {
            let main = stack.main, objectID = form.objectID
            let current: [String: String]? = await main.perform {
                (try? main.existingObject(with: objectID)).map { table.values(of: $0) }
            }
            guard let current else { return deletedMeanwhile(form, session: session) }
            let chosen = current.filter { theirs.contains($0.key) }
            let scratchpad = form.scratchpad
            await scratchpad.perform {
                guard let object = try? scratchpad.existingObject(with: objectID) else { return }
                _ = table.apply(chosen, to: object, in: scratchpad)
            }
        }
        return try await save(form, policy: .mergeByPropertyObjectTrump, session: session)
    }

    /// The form again, with the errors (422).
    func refused(_ form: EditForm, errors: [FieldError], kept: [String: String], session: Session,
                 recording: Bool = true) async throws -> Response {
        if recording { recorder.saveRefused(form, errors: errors.map(\.message)) }
        guard let snapshot = try await snapshot(form) else { return deletedMeanwhile(form, session: session) }
        return await formPage(form, snapshot: snapshot, kept: kept, errors: errors, status: .unprocessableContent,
                              session: session)
    }
}
