import Foundation
import ObjectGraph

/// What the database holds of one scratchpad and the forms open in it (an owner form and the
/// forms nested in it): enough for any server to rebuild it (``FormStorage``).
///
/// The scratchpad's state is ObjectGraph's archive of ``UnsavedChanges``
/// (``ManagedObjectContext/workingState(including:)``): every pending change (the fields the
/// visitor typed, rows added, moved and removed, objects added in nested forms) with the
/// committed values each was made from and their row versions, plus the values the visitor
/// read of the form's objects and rows even where nothing changed yet. A save from the
/// rebuilt scratchpad therefore meets a change made since the visitor read the form as a
/// conflict, exactly as a save from the original would.
struct StoredForm: Codable, Sendable {
    /// One form's own part: what ``EditForm`` holds besides its scratchpad.
    struct Descriptor: Codable, Sendable {
        let id: String
        let entity: String
        let noun: String
        let objectID: ObjectID
        let isNew: Bool
        let returnPath: String
        let section: String
        let parentFormID: String?
        let resolvesSetAside: String?
        let openedAt: Date
    }

    /// The owner form's ID: the record's key.
    let key: String
    /// The stored key of the session the form belongs to (``StoredSessionKey``, never the
    /// session ID itself): no other session may open it.
    let sessionKey: String
    /// Random, new at every write: a server whose copy has another revision rebuilds it.
    let revision: String
    let scratchpadName: String
    /// The owner form first, then the forms nested in it, in the order they were opened.
    let forms: [Descriptor]
    /// ``UnsavedChanges/archived()``.
    let changes: Data
}

extension EditForm {
    var descriptor: StoredForm.Descriptor {
        StoredForm.Descriptor(id: id, entity: entity, noun: noun, objectID: objectID, isNew: isNew, returnPath: returnPath,
                              section: section, parentFormID: parentFormID, resolvesSetAside: resolvesSetAside,
                              openedAt: openedAt)
    }

    /// The form `descriptor` describes, over a rebuilt `scratchpad`.
    init(_ descriptor: StoredForm.Descriptor, scratchpad: ManagedObjectContext, revision: String?) {
        self.init(id: descriptor.id, entity: descriptor.entity, noun: descriptor.noun, scratchpad: scratchpad,
                  objectID: descriptor.objectID, isNew: descriptor.isNew, returnPath: descriptor.returnPath,
                  section: descriptor.section, parentFormID: descriptor.parentFormID,
                  resolvesSetAside: descriptor.resolvesSetAside, openedAt: descriptor.openedAt,
                  revision: descriptor.parentFormID == nil ? revision : nil)
    }
}
