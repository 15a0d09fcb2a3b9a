/// Reads an invoice file's records into batches of invoices on a task of its own, so that
/// the next batch is parsed while the import context saves the one before (both cores work,
/// and memory holds two batches and a piece of the file, whatever the file's size).
actor ImportBatchReader {
    /// The invoices of one batch, with what reading them reported.
    struct Batch: Sendable {
        var invoices: [ImportedInvoice]
        /// Rows that could not be read since the batch before.
        var skipped: [ImportReport.SkippedRow]
        /// Rows read into this batch and those before it, or skipped.
        var handledRows: Int
        /// No rows follow.
        var isLast: Bool
    }

    private var records: ImportFile.Records
    private var gatherer: InvoiceGatherer
    private let batchSize: Int
    private var atEnd = false
    private var finished = false

    init(_ records: sending ImportFile.Records, header: InvoiceCSVHeader, batchSize: Int) {
        self.records = records
        gatherer = InvoiceGatherer(header: header)
        self.batchSize = max(1, batchSize)
    }

    /// Invoices met so far, imported or not.
    var invoiceCount: Int { gatherer.invoiceCount }

    /// The next batch; nil once every row has been handed over.
    /// - Throws: ``ImportError`` when the file cannot be read on.
    func next() throws(ImportError) -> Batch? {
        guard !finished else { return nil }
        while true {
            if gatherer.ready.count >= batchSize || (atEnd && !gatherer.ready.isEmpty) {
                let invoices = gatherer.take(batchSize)
                return batch(invoices)
            }
            if atEnd {
                finished = true
                let last = batch([])
                return last.skipped.isEmpty ? nil : last
            }
            if let rows = try records.next() {
                for row in rows { gatherer.add(row) }
            } else {
                gatherer.finish()
                atEnd = true
            }
        }
    }

    private func batch(_ invoices: [ImportedInvoice]) -> Batch {
        Batch(invoices: invoices, skipped: gatherer.takeSkipped(), handledRows: gatherer.handledRows,
              isLast: atEnd && gatherer.ready.isEmpty)
    }
}
