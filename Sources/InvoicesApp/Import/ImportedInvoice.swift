import Foundation

/// One invoice of an import file, gathered from its rows: the first row's invoice and
/// client columns, the lines of its `line` rows in order, the payments of its `payment` rows.
@dynamicMemberLookup
struct ImportedInvoice: Sendable {
    /// The line its first row starts on: where it is reported.
    let line: Int
    let client: InvoiceCSVRow.ClientFields
    let invoice: InvoiceFields
    /// Whether the file gave the total (see ``InvoiceCSVRow/hasAmount``).
    let hasAmount: Bool
    /// Nil: a one-amount row, whose amount becomes its one line. Empty: an invoice without
    /// lines, whose amount is kept as it is.
    var lines: [LineFields]?
    var payments: [PaymentFields] = []
    /// How many rows of the file it was read from.
    var rowCount = 1

    subscript<T>(dynamicMember keyPath: KeyPath<InvoiceFields, T>) -> T { invoice[keyPath: keyPath] }

    init(_ row: InvoiceCSVRow) {
        line = row.line
        client = row.client
        invoice = row.invoice
        hasAmount = row.hasAmount
        lines = row.kind == .oneAmount ? nil : []
        add(row)
        rowCount = 1
    }

    /// Adds a later row's line or payment.
    mutating func add(_ row: InvoiceCSVRow) {
        rowCount += 1
        if let item = row.lineItem { lines?.append(item) }
        if let payment = row.payment { payments.append(payment) }
    }
}
