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

    /// Gathers `rows` into invoices, in the order of their first rows: a one-amount row is an
    /// invoice of its own; other rows join the invoice their `invoice` column names (or, when
    /// it is blank, their identifier). An invoice one of whose rows could not be read is left
    /// out whole, and reported: importing it without that line or payment would import a
    /// different invoice.
    static func gather(_ rows: [InvoiceCSVRow], unreadable: [ImportReport.SkippedRow],
                       keysOfUnreadable: [Int: String]) -> (invoices: [ImportedInvoice], skipped: [ImportReport.SkippedRow]) {
        var invoices: [ImportedInvoice] = []
        var indexByKey: [String: Int] = [:]
        for row in rows {
            guard row.kind != .oneAmount, let key = row.groupKey ?? row.identifier else {
                invoices.append(ImportedInvoice(row))
                continue
            }
            if let index = indexByKey[key] {
                invoices[index].add(row)
            } else {
                indexByKey[key] = invoices.count
                invoices.append(ImportedInvoice(row))
            }
        }
        var skipped: [ImportReport.SkippedRow] = []
        var broken = Set<Int>()
        for failure in unreadable {
            guard let key = keysOfUnreadable[failure.line], let index = indexByKey[key], broken.insert(index).inserted else {
                continue
            }
            let first = invoices[index].line
            skipped.append(.init(line: first, reasons: [
                "Invoice \(EchoedInput.plain(invoices[index].identifier ?? key)) was not imported: its row on line \(failure.line) could not be read."]))
        }
        let kept = invoices.indices.filter { !broken.contains($0) }.map { invoices[$0] }
        return (kept, skipped)
    }
}
