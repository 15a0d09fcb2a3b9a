import Foundation

/// Forms rebuilt from the database (``FormStorage``): another server changed them, or this
/// one never held them.
extension SessionStore {
    /// The session as held here, untouched (after a form was rebuilt into it).
    func peek(_ sid: String) -> Session? {
        state.withLock { $0.sessions[sid] }
    }

    /// Replaces this process's forms of one scratchpad (owner `key`) with `forms`, rebuilt
    /// from the database, quietly: for the visitor the forms never closed.
    func replaceForms(ofOwner key: String, with forms: [EditForm], in sid: String) {
        let replaced = state.withLock { state -> [EditForm] in
            guard var session = state.sessions[sid] else { return [] }
            let old = session.forms.filter { $0.ownerKey == key }
            session.forms.removeAll { $0.ownerKey == key }
            session.forms.append(contentsOf: forms)
            state.sessions[sid] = session
            state.formCount += forms.count - old.count
            return old
        }
        for form in replaced { notify(.closed(form, sessionID: sid, reason: .rebuilt)) }
        for form in forms { notify(.opened(form, sessionID: sid)) }
    }

    /// Notes the revision of scratchpad `key` this process wrote or read last.
    func setRevision(_ revision: String, ofOwner key: String, in sid: String) {
        state.withLock { state in
            guard let index = state.sessions[sid]?.forms.firstIndex(where: { $0.id == key }) else { return }
            state.sessions[sid]?.forms[index].revision = revision
        }
    }

    /// How many open forms the database holds, of every server; nil without a database or
    /// when it cannot be read (logged).
    func storedFormCount() -> Int? {
        guard let stored else { return nil }
        do { return try stored.formCount(now: wallNow()) } catch {
            logger.error("Counting the stored forms failed: \(error)")
            return nil
        }
    }
}
