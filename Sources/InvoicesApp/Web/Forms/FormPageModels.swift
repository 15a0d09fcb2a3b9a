/// `/forms/{id}`: an edit form rendered from its scratchpad.
struct FormPage: Sendable {
    let heading: String
    let action: String
    let fields: [FormField]
    /// The error summary at the top, each linking to its field.
    let errors: [FieldError]
    let hasErrors: Bool
    let cancelLabel: String
    /// "Save", or "Done" for a form nested in another (saved with its owner).
    let saveLabel: String
    /// Objects of other entities added in this form and saved with it (a client's invoices).
    let nested: [NestedSection]
    /// A form nested in another: no choice of the owner, no separate save.
    let isNested: Bool
    /// Rows edited in the form itself (an invoice's lines), if any.
    let rows: RowsSection?
}

/// A section of a form listing the objects added in it, with the button that adds one.
struct NestedSection: Sendable {
    /// The relationship's name: the section's anchor (`field-invoices`), where errors of the
    /// objects in it point.
    let relationship: String
    let title: String
    /// `add-invoice`.
    let action: String
    let addLabel: String
    let rows: [NestedRow]
    let hasRows: Bool
}

/// An object added in a form, linking to its own form.
struct NestedRow: Sendable {
    let formPath: String
    let title: String
    let summary: String
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

/// The rows edited inside a form (an invoice's lines), as inputs, with their buttons.
struct RowsSection: Sendable {
    /// The rows' prefix: the section's anchor (`field-line`).
    let prefix: String
    let title: String
    let headers: [String]
    let rows: [RowInputs]
    /// `add-line`.
    let addAction: String
    let addLabel: String
    let totals: [RowsTotal]
    let note: String
}

/// One row of a ``RowsSection``.
struct RowInputs: Sendable {
    /// 1-based, as errors and buttons say it.
    let number: Int
    let cells: [RowCell]
    let summary: String
    let removeAction: String
    let moveUpAction: String?
    let moveDownAction: String?
}

/// One input of a row.
struct RowCell: Sendable {
    let name: String
    let label: String
    let value: String
    let error: String?
    let isNumeric: Bool
}

/// A total under the rows.
struct RowsTotal: Sendable {
    let label: String
    let value: String
}
