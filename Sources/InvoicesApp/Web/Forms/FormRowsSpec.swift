import Foundation
import ObjectGraph

/// An ordered to-many relationship edited as a table of inputs inside its owner's form (an
/// invoice's lines): one row per destination, in order, with buttons that add a row, remove
/// one and move one up or down. Rows live in the owner's scratchpad and are saved with it.
///
/// Unlike ``NestedFormSpec`` (a form of its own per destination), every row's inputs are
/// posted with the owner's, so each button keeps what was typed everywhere in the form.
struct FormRowsSpec<Owner: EditableEntity>: Sendable {
    /// Input names' prefix and the action buttons' noun (`line`: `add-line`, `line-0-quantity`).
    let prefix: String
    /// The section's heading.
    let title: String
    /// What an error calls a row ("Line").
    let noun: String
    let columns: [FormRowColumn]
    /// The rows, in order (deleted ones left out).
    let rows: @Sendable (Owner) -> [ManagedObject]
    /// Sets the rows' order.
    let reorder: @Sendable (Owner, [ManagedObject]) -> Void
    /// Appends a new row.
    let append: @Sendable (Owner, ManagedObjectContext) -> Void
    /// One line about a row (its net), shown beside its inputs.
    let summary: @Sendable (ManagedObject) -> String
    /// The owner's totals as (label, value), shown under the rows.
    let totals: @Sendable (Owner) -> [(label: String, value: String)]
    /// A sentence under the totals (how amounts are rounded).
    let note: String
}

/// One input of a row of a ``FormRowsSpec``.
struct FormRowColumn: Sendable {
    /// The input's name inside the row (`quantity`): inputs are `{prefix}-{index}-{name}`.
    let name: String
    /// The model property it edits (`quantity`), which validation failures name.
    let property: String
    /// What errors and headers call it (`quantity`).
    let label: String
    /// `numeric` columns are right-aligned and typed with a decimal keyboard.
    let isNumeric: Bool
    let read: @Sendable (ManagedObject) -> String
    /// Applies typed text; returns why it cannot be read (after "Line 2, quantity: ").
    let write: @Sendable (String, ManagedObject) -> String?
}
