/// `/forms/{id}`: an edit form rendered from its scratchpad.
struct FormPage: Sendable {
    let heading: String
    let action: String
    let fields: [FormField]
    /// The error summary at the top, each linking to its field.
    let errors: [FieldError]
    let hasErrors: Bool
    let cancelLabel: String
    /// "Save", or "Done" for an invoice inside a client's form (saved with the client).
    let saveLabel: String
    /// A client form offers to add invoices that are saved with it.
    let isClientForm: Bool
    let nestedInvoices: [Dashboard.NestedInvoiceRow]
    let hasNestedInvoices: Bool
    /// An invoice inside a client's form: no client choice, no separate save.
    let isNested: Bool
}

/// One property of the 409 page: the value when the form opened, now, and the form's.
struct ConflictRow: Sendable {
    /// The model property (and form input) name: the per-field choice is `pick-{property}`.
    let property: String
    let label: String
    let base: String
    let theirs: String
    let ours: String
}

/// The 409 page: what changed meanwhile, and the choices.
struct ConflictPage: Sendable {
    let heading: String
    let action: String
    let rows: [ConflictRow]
    let deletedElsewhere: Bool
    let startAgainLink: String
}

/// What a form's page is read from: the scratchpad object's values as text, and for an
/// invoice the clients to choose from. Read on the scratchpad's queue.
struct FormSnapshot: Sendable {
    let values: [String: String]
    let clients: [ClientChoice]
    let title: String
}
