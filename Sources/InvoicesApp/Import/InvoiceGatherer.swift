/// Gathers the rows of an invoice file into invoices as they are read: a one-amount row is an
/// invoice of its own; other rows join the invoice before them when their `invoice` column
/// (or, when it is blank, their identifier) names the same one. The rows of one invoice follow
/// each other, as the export writes them.
///
/// An invoice one of whose rows could not be read is left out whole, and reported: importing
/// it without that line or payment would import a different invoice.
struct InvoiceGatherer {
    let header: InvoiceCSVHeader
    /// Invoices whose rows are all read, in file order.
    private(set) var ready: [ImportedInvoice] = []
    /// Rows that cannot be imported, with their reasons.
    private(set) var skipped: [ImportReport.SkippedRow] = []
    /// Rows read into the invoices given so far, or skipped.
    private(set) var handledRows = 0
    /// Invoices met so far, imported or not.
    private(set) var invoiceCount = 0

    private var current: ImportedInvoice?
    private var currentKey: String?
    /// The invoice whose rows are being dropped, and the line of the row that broke it.
    private var broken: (key: String, line: Int, reported: Bool)?

    init(header: InvoiceCSVHeader) { self.header = header }

    mutating func add(_ row: CSVRow) {
        switch row {
        case .malformed(let syntax):
            skipped.append(.init(line: syntax.line, reasons: [ImportFile.sentence(syntax.reason)]))
            handledRows += 1
        case .record(let record):
            switch InvoiceCSVRow.read(record, header: header) {
            case .success(let row): add(row)
            case .failure(let failure): addUnreadable(failure, record)
            }
        }
    }

    /// Hands over the invoices ready so far (at most `limit`).
    mutating func take(_ limit: Int) -> [ImportedInvoice] {
        let taken = Array(ready.prefix(limit))
        ready.removeFirst(taken.count)
        handledRows += taken.reduce(0) { $0 + $1.rowCount }
        return taken
    }

    /// Takes the skipped rows reported so far.
    mutating func takeSkipped() -> [ImportReport.SkippedRow] {
        defer { skipped.removeAll() }
        return skipped
    }

    /// The end of the file: the last invoice is ready.
    mutating func finish() { flush() }

    private mutating func add(_ row: InvoiceCSVRow) {
        guard row.kind != .oneAmount, let key = row.groupKey ?? row.identifier else {
            flush()
            ready.append(ImportedInvoice(row))
            invoiceCount += 1
            return
        }
        if let dropped = broken, dropped.key == key {
            if !dropped.reported {
                skipped.append(brokenMessage(key: row.identifier ?? key, at: row.line, badLine: dropped.line))
                broken?.reported = true
            }
            handledRows += 1
            return
        }
        if key == currentKey, current != nil {
            current?.add(row)
            return
        }
        flush()
        current = ImportedInvoice(row)
        currentKey = key
        invoiceCount += 1
    }

    private mutating func addUnreadable(_ failure: ImportReport.SkippedRow, _ record: CSVRecord) {
        skipped.append(failure)
        handledRows += 1
        let key = FieldInput.optionalText(header.value(.invoice, in: record))
            ?? FieldInput.optionalText(header.value(.identifier, in: record))
        // A one-amount row is its own invoice: nothing else is lost with it.
        guard let key, FieldInput.optionalText(header.value(.record, in: record)) != nil else {
            invoiceCount += 1
            return
        }
        if key == currentKey, let invoice = current {
            skipped.append(brokenMessage(key: invoice.identifier ?? key, at: invoice.line, badLine: record.line))
            handledRows += invoice.rowCount
            current = nil
            broken = (key, record.line, true)
        } else if broken?.key != key {
            flush()
            broken = (key, record.line, false)
            invoiceCount += 1
        }
    }

    private func brokenMessage(key: String, at line: Int, badLine: Int) -> ImportReport.SkippedRow {
        .init(line: line, reasons: ["Invoice \(EchoedInput.plain(key)) was not imported: its row on line \(badLine) could not be read."])
    }

    private mutating func flush() {
        if let invoice = current { ready.append(invoice) }
        current = nil
        currentKey = nil
        broken = nil
    }
}
