import Foundation

/// An invoice's own values, as generated or imported: one type, written to an ``Invoice`` in
/// one place, so an attribute added to the model is added here once.
public struct InvoiceFields: Sendable, Hashable {
    /// Nil: numbered when it leaves draft (see ``InvoiceNumbering``).
    public var identifier: String?
    public var amount: Decimal
    public var currency: String
    public var status: InvoiceStatus
    public var issueDate: CalendarDay
    public var dueDate: CalendarDay
    public var notes: String?

    public init(identifier: String?, amount: Decimal, currency: String, status: InvoiceStatus,
                issueDate: CalendarDay, dueDate: CalendarDay, notes: String?) {
        self.identifier = identifier
        self.amount = amount
        self.currency = currency
        self.status = status
        self.issueDate = issueDate
        self.dueDate = dueDate
        self.notes = notes
    }
}

extension Invoice {
    /// Writes `fields` (validated when the context saves); the client is set apart.
    /// - Parameter lines: the invoice's lines; nil makes the amount its one line, and no
    ///   lines keep the amount as it is.
    func assign(_ fields: InvoiceFields, lines: [LineFields]? = nil) {
        identifier = fields.identifier
        currency = fields.currency
        status = fields.status
        issueDay = fields.issueDate
        dueDay = fields.dueDate
        notes = fields.notes
        // After the notes and currency, which the lines' description and rounding read.
        switch lines {
        case nil: setSingleLine(amount: fields.amount)
        case let lines? where lines.isEmpty: amount = fields.amount
        case let lines?: replaceLines(with: lines)
        }
    }
}
