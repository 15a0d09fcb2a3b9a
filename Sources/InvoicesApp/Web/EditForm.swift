import Foundation
import ObjectGraph

/// An open edit form: the scratchpad holding its object, in one visitor's session.
///
/// `Sendable`: the fields are immutable; the scratchpad is used only through its own
/// `perform` blocks.
struct EditForm: Sendable {
    /// Which entity the form edits.
    enum Kind: String, Sendable {
        case client, invoice

        /// The list's path (`/clients`).
        var listPath: String { "/\(rawValue)s" }
    }

    /// Random, part of the form's URL (`/forms/{id}`).
    let id: String
    let kind: Kind
    /// A child of the main context, made for this form only.
    let scratchpad: ManagedObjectContext
    /// The object edited; temporary for a new one.
    let objectID: ObjectID
    /// Whether the object is new (not in the store yet).
    let isNew: Bool
    /// Where "cancel" goes back to.
    let returnPath: String
    /// For an invoice added inside a client's form: that form's ID. Such an invoice lives in
    /// the client form's scratchpad and is saved with the client, or not at all.
    var parentFormID: String? = nil
    /// For a form that resolves a change the writer set aside: that change's ID, forgotten
    /// once the form saves.
    var resolvesSetAside: String? = nil
    /// When the form (and its scratchpad) was opened: the inspector shows its age.
    let openedAt = Date()

    /// The form's URL.
    var path: String { "/forms/\(id)" }

    /// The navigation section the form belongs to: its kind's list, except for an invoice
    /// edited inside a client's form, which is part of editing that client.
    var section: String { parentFormID == nil ? String(kind.listPath.dropFirst()) : "clients" }
}
