import Foundation
import ObjectGraph

/// An open edit form: the scratchpad holding its object, in one visitor's session (and, for
/// other servers, in the database: ``StoredForm``).
///
/// `Sendable`: the fields are immutable; the scratchpad is used only through its own
/// `perform` blocks.
struct EditForm: Sendable {
    /// Random, part of the form's URL (`/forms/{id}`).
    let id: String
    /// The entity edited (its model name): which ``FormTable`` the form uses.
    let entity: String
    /// What one is called (`client`), for headings and the inspector.
    let noun: String
    /// A child of the main context, made for this form (shared by the forms nested in it).
    let scratchpad: ManagedObjectContext
    /// The object edited; temporary for a new one.
    let objectID: ObjectID
    /// Whether the object is new (not in the store yet).
    let isNew: Bool
    /// Where "cancel" goes back to.
    let returnPath: String
    /// The navigation section the form belongs to (`clients`): its entity's, or for a form
    /// nested in another, the owner's.
    let section: String
    /// For a form nested in another (an invoice added in a client's form): that form's ID.
    /// Its object lives in the owner's scratchpad and is saved with the owner, or not at all.
    var parentFormID: String? = nil
    /// For a form that resolves a change the writer set aside: that change's ID, forgotten
    /// once the form saves.
    var resolvesSetAside: String? = nil
    /// When the form (and its scratchpad) was opened: the inspector shows its age.
    var openedAt = Date()
    /// For an owner form (not nested): the revision of its scratchpad this process last wrote
    /// to or read from the database (``StoredForm``); another revision there means another
    /// server changed it since, and the scratchpad is rebuilt.
    var revision: String? = nil

    /// The form's URL.
    var path: String { "/forms/\(id)" }

    /// The ID of the form whose scratchpad holds this one: its own for an owner form, the
    /// owner's for a nested form (whose ID starts with its owner's and a dot).
    var ownerKey: String { Self.ownerKey(of: id) }

    static func ownerKey(of id: String) -> String {
        String(id.prefix { $0 != "." })
    }

    /// The ID of a form nested in `owner`'s scratchpad.
    static func nestedID(in owner: EditForm) -> String {
        owner.ownerKey + "." + Tokens.random().prefix(32)
    }
}
