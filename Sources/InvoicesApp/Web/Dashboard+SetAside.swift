import Foundation
import HTTPTypes
import ObjectGraph
import WebServer

/// Changes the writer set aside (deferred persistence: the file refused them, everything
/// else was written). The object's page says so, with base / now / the change;
/// `/set-aside/{id}` lets a visitor resolve one in a form (the change adopted by a new
/// scratchpad, then saved as any form is: a conflict shows the 409 page) or discard it.
extension Dashboard {
    func addSetAsideRoutes(to router: Router) {
        router.get("/set-aside/:id") { [self] request in try await showSetAside(request) }
        router.post("/set-aside/:id") { [self] request in try await submitSetAside(request) }
    }

    /// The notices an object's page shows, and the set-aside insertion when the object is
    /// not in the file at all (its page is then the set-aside page).
    func setAsideNotices<T: ManagedObject>(_ type: T.Type, _ pk: Int64) -> (notices: [SetAsideNotice], insert: SetAsideNotice?) {
        guard let id = stack.coordinator.managedObjectID(for: type, primaryKey: pk) else { return ([], nil) }
        let changes = stack.persistence.setAside(for: id)
        let notices = changes.map(SetAsideNotice.init)
        return (notices, zip(changes, notices).first { $0.0.kind == .inserted }?.1)
    }

    private func showSetAside(_ request: Request) async throws -> Response {
        let visit = visit(request, needsSession: true)
        guard let change = stack.persistence.setAsideChange(id: request.parameters["id"] ?? "") else {
            return resolvedAlready(visit: visit)
        }
        let notice = SetAsideNotice(change)
        let objectLink = change.kind == .inserted ? nil : change.primaryKey.map { "/\(change.entity.lowercased())s/\($0)" }
        let page = SetAsidePage(heading: "\(change.entity) \(change.primaryKey.map(String.init) ?? ""): not on disk",
                                reason: notice.reason, setAsideAt: notice.setAsideAt, rows: notice.rows,
                                action: notice.link, objectLink: objectLink, entity: change.entity.lowercased())
        return render("set-aside", chrome: chrome("Not on disk", section: "\(change.entity.lowercased())s",
                                                  session: visit.session),
                      page: page, visit: visit)
    }

    private func submitSetAside(_ request: Request) async throws -> Response {
        let submission: Submission
        switch try checkedPost(request) {
        case .refused(let response): return response
        case .accepted(let accepted): submission = accepted
        }
        let visit: Visit = (submission.session, false)
        guard let change = stack.persistence.setAsideChange(id: request.parameters["id"] ?? "") else {
            return resolvedAlready(visit: visit)
        }
        let objectPage = change.primaryKey.map { "/\(change.entity.lowercased())s/\($0)" } ?? "/clients"
        switch submission.fields["action"] {
        case "discard":
            stack.persistence.forget(change.id, because: "discarded by a visitor")
            sessions.setFlash("The set-aside change was discarded; the file's values stand.", for: visit.session.id)
            return .redirect(to: change.kind == .inserted ? "/\(change.entity.lowercased())s" : objectPage)
        case "resolve":
            return try await resolveInForm(change, returnPath: objectPage, visit: visit)
        default:
            throw HTTPError(.badRequest, "Choose resolve or discard.")
        }
    }

    /// Opens a form whose scratchpad adopts the change, and saves it: a conflict or a taken
    /// value shows as for any form, with the form open to settle it.
    private func resolveInForm(_ change: SetAsideChange, returnPath: String, visit: Visit) async throws -> Response {
        let kind: EditForm.Kind = change.entity == "Client" ? .client : .invoice
        let scratchpad = formScratchpad("form: set-aside \(change.objectID)")
        try await scratchpad.perform(schedule: .enqueued) { try scratchpad.adopt(change.changes) }
        let form = EditForm(id: SessionStore.randomToken(), kind: kind, scratchpad: scratchpad, objectID: change.objectID,
                            isNew: change.kind == .inserted, returnPath: returnPath, resolvesSetAside: change.id)
        sessions.add(form, to: visit.session.id)
        return try await save(form, policy: .error, kept: [:], visit: visit)
    }

    private func resolvedAlready(visit: Visit) -> Response {
        errorPage(.gone, title: "Already settled",
                  message: "This set-aside change was resolved or discarded already.",
                  link: "/clients", linkText: "Back to the clients", visit: visit)
    }
}

/// A set-aside change as a page shows it.
struct SetAsideNotice: Sendable {
    let link: String
    /// Why the file refused it, in words.
    let reason: String
    let setAsideAt: String
    let rows: [ConflictRow]

    init(_ change: SetAsideChange) {
        link = "/set-aside/\(change.id)"
        switch change.reason {
        case .conflict(let conflict) where conflict.deletedElsewhere:
            reason = "It was deleted in the file (by another server or process) after this change was made"
        case .conflict:
            reason = "Someone changed the same \(change.entity.lowercased()) in the file (another server or process) after this change was made"
        case .duplicate(let violation):
            reason = Dashboard.uniquenessMessage(violation).replacingOccurrences(of: ": choose another.", with: "")
        }
        setAsideAt = change.setAsideAt.formatted(.iso8601)
        rows = change.properties.filter { !$0.yours.isReferenceList }.map {
            ConflictRow(property: $0.name, label: Dashboard.label(of: $0.name), base: Dashboard.shown($0.base),
                        theirs: $0.theirs.map(Dashboard.shown) ?? (change.kind == .inserted ? "" : "unchanged"),
                        ours: Dashboard.shown($0.yours))
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
