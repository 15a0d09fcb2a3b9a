import Foundation
import ObjectGraph

/// Open forms shared through the database (``StoredSessions``): each scratchpad is written
/// after every request that changed it, before the answer, and a server that does not hold
/// it (another server opened it, or this one restarted) or holds an older revision rebuilds
/// it on the visitor's next request. Without a database, forms live in this process only.
struct FormStorage: Sendable {
    let stack: InvoicesStack
    let sessions: SessionStore
    let catalog: FormCatalog

    /// What a visitor's form ID finds.
    enum Lookup {
        /// The form, and the session as it now holds it (rebuilt forms included).
        case open(EditForm, Session)
        /// Saved, cancelled, expired, or never there.
        case closed
        /// The database could not be read: try again later (503).
        case unavailable(any Error)
    }

    /// A scratchpad for a form, holding what the visitor is shown as its base. Its saves are
    /// recorded in history under the visitor's label and the form's name.
    func scratchpad(_ name: String, for session: Session) -> ManagedObjectContext {
        let scratchpad = stack.newScratchpad(name: name)
        scratchpad.automaticallyMergesChangesFromParent = false
        scratchpad.transactionAuthor = stack.author(session.label)
        return scratchpad
    }

    /// The form `id` of `session`, as the database holds it now: the copy held here when it
    /// is the database's revision, else rebuilt from the database.
    func form(_ id: String, in session: Session) async -> Lookup {
        guard let stored = sessions.stored else { return session.form(id).map { .open($0, session) } ?? .closed }
        let key = EditForm.ownerKey(of: id)
        let record: StoredForm?
        do {
            record = try stored.form(key, now: sessions.wallNow())
        } catch let error as DecodingError {
            sessions.logger.error("Form \(key.prefix(6))… in the database cannot be read: \(error)")
            record = nil
        } catch {
            sessions.logger.error("Reading form \(key.prefix(6))… from the database failed: \(error)")
            return .unavailable(error)
        }
        guard let record, Tokens.constantTimeEqual(record.sessionKey, StoredSessionKey.of(session.id)) else {
            if session.form(key) != nil { sessions.removeForm(key, from: session.id, reason: .closed, inDatabaseToo: false) }
            return .closed
        }
        if session.form(key)?.revision == record.revision {
            return session.form(id).map { .open($0, session) } ?? .closed
        }
        do {
            let forms = try await rebuild(record, session: session)
            sessions.replaceForms(ofOwner: key, with: forms, in: session.id)
        } catch {
            sessions.logger.error("Form \(key.prefix(6))… cannot be rebuilt: \(error)")
            return .closed
        }
        guard let current = sessions.peek(session.id), let form = current.form(id) else { return .closed }
        return .open(form, current)
    }

    /// A new scratchpad that adopts the stored state, with the forms open in it.
    private func rebuild(_ record: StoredForm, session: Session) async throws -> [EditForm] {
        let changes = try UnsavedChanges(archived: record.changes, model: stack.coordinator.model)
        let scratchpad = scratchpad(record.scratchpadName, for: session)
        try await scratchpad.perform(schedule: .enqueued) { try scratchpad.adopt(changes) }
        return record.forms.map { EditForm($0, scratchpad: scratchpad, revision: record.revision) }
    }

    /// Writes the scratchpad holding `form` (and the forms open in it) to the database, and
    /// notes the revision written. Nothing to do when the form is closed or there is no
    /// database.
    /// - Throws: ``StoreError`` when the database refused: the visitor's input is then held by
    ///   this process only.
    func persist(_ form: EditForm, session sid: String) async throws {
        guard let stored = sessions.stored, let current = sessions.peek(sid) else { return }
        let key = form.ownerKey
        let forms = current.forms.filter { $0.ownerKey == key }
        guard let owner = forms.first(where: { $0.id == key }) else { return }
        let scratchpad = owner.scratchpad, catalog = catalog, sessions = sessions
        let shown = forms.map { ($0.entity, $0.objectID) }
        let descriptors = [owner.descriptor] + forms.filter { $0.id != key }.map(\.descriptor)
        // Taken and written in one block of the scratchpad's queue, so that two requests of
        // one form write their states in the order they made them.
        try await scratchpad.perform {
            // What the visitor read: each form's object and the rows it shows.
            var read = Set(shown.map(\.1))
            for (entity, id) in shown {
                guard let rows = catalog.table(forEntity: entity)?.rows,
                      let object = try? scratchpad.existingObject(with: id), !object.isDeleted else { continue }
                read.formUnion(rows.positions(in: object).keys)
            }
            let record = StoredForm(key: key, sessionKey: StoredSessionKey.of(sid), revision: Tokens.random(),
                                    scratchpadName: scratchpad.name ?? "form", forms: descriptors,
                                    changes: try scratchpad.workingState(including: read).archived())
            try stored.save(record, session: sid, expiresAt: sessions.expiry())
            sessions.setRevision(record.revision, ofOwner: key, in: sid)
        }
    }
}
