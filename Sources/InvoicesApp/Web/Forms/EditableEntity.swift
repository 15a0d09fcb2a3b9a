import ObjectGraph

/// An entity the dashboard edits in forms: `/{formPath}/new` and `/{formPath}/{pk}/edit` open
/// one, a save leads to `/{formPath}/{pk}`.
///
/// Its field table (``formFields``) says which properties the form shows, in which order, with
/// which input, and their labels: the one place a label is written. Whether a field is
/// required, its length limit, and its minimum come from the model's declarations
/// (`@Attribute(.required, .maxLength(200))`), so a change to the model changes the form. No
/// code in `Web/` switches on the kind of object: another editable entity is another table.
protocol EditableEntity: ManagedObject {
    /// The path of the entity's pages (`clients`).
    static var formPath: String { get }
    /// What one is called (`client`).
    static var formNoun: String { get }
    /// The form's fields, in page order.
    static var formFields: [FormFieldSpec<Self>] { get }
    /// Objects of another editable entity edited inside this form and saved with it (a new
    /// client's invoices).
    static var nestedForms: [NestedFormSpec<Self>] { get }
    /// An ordered to-many relationship edited as rows of inputs in this form (an invoice's
    /// lines), or nil.
    static var formRows: FormRowsSpec<Self>? { get }
    /// Sets up a new object; `parameters` are the opening URL's (`?client=3`).
    static func prepareNew(_ object: Self, parameters: [String: String], in context: ManagedObjectContext)
    /// Runs after the visitor's input is applied, before a save: to keep what follows from the
    /// input in step (an invoice's status from its payments).
    static func inputApplied(_ object: Self, in context: ManagedObjectContext)
    /// Where a saved object is shown, when not on its own page (`/{formPath}/{pk}`): a payment
    /// on its invoice's.
    static func pagePath(of object: Self) -> String?
    /// What a heading calls the object (a client's name).
    var formTitle: String { get }
    /// One line about the object in a list inside another form (an invoice's amount).
    var formSummary: String { get }
}

extension EditableEntity {
    static var nestedForms: [NestedFormSpec<Self>] { [] }
    static var formRows: FormRowsSpec<Self>? { nil }
    static func prepareNew(_ object: Self, parameters: [String: String], in context: ManagedObjectContext) {}
    static func inputApplied(_ object: Self, in context: ManagedObjectContext) {}
    static func pagePath(of object: Self) -> String? { nil }
    var formSummary: String { "" }
}

/// A to-many relationship whose destinations are edited inside the owner's form: each gets a
/// form of its own in the same scratchpad, and is saved with the owner or not at all.
struct NestedFormSpec<Owner: EditableEntity>: Sendable {
    /// The owner's relationship (`invoices`).
    let relationship: PartialKeyPath<Owner> & Sendable
    /// The destination's entity.
    let destination: any EditableEntity.Type
    /// The section's heading in the owner's form.
    let title: String
    /// The button that adds one.
    let addLabel: String
}
