import Foundation

/// A CSV file to import, parsed: its header and its records, read into rows.
struct ImportFile: Sendable {
    let header: InvoiceCSVHeader
    /// The data records (after the header), malformed ones included.
    let records: [CSVRow]

    var recordCount: Int { records.count }

    /// Parses `data`.
    /// - Throws: ``ImportError`` when the file is not UTF-8, is empty, or its header is
    ///   malformed or lacks a required column.
    init(_ data: Data) throws(ImportError) {
        let parsed: [CSVRow]
        do { parsed = try CSVParser.parse(data) } catch { throw .notUTF8(line: Self.line(of: error)) }
        guard let first = parsed.first else { throw .empty }
        guard case .record(let headerRecord) = first else {
            if case .malformed(let syntax) = first { throw .malformedHeader(syntax) }
            throw .empty
        }
        header = try InvoiceCSVHeader(headerRecord)
        records = Array(parsed.dropFirst())
    }

    /// The invoices of the file, and the rows (or whole invoices) that cannot be imported.
    func invoices() -> (invoices: [ImportedInvoice], skipped: [ImportReport.SkippedRow]) {
        var rows: [InvoiceCSVRow] = []
        rows.reserveCapacity(records.count)
        var skipped: [ImportReport.SkippedRow] = []
        var keysOfUnreadable: [Int: String] = [:]
        for record in records {
            switch record {
            case .malformed(let syntax):
                skipped.append(.init(line: syntax.line, reasons: [Self.sentence(syntax.reason)]))
            case .record(let record):
                switch InvoiceCSVRow.read(record, header: header) {
                case .success(let row): rows.append(row)
                case .failure(let failure):
                    skipped.append(failure)
                    let key = FieldInput.optionalText(header.value(.invoice, in: record))
                        ?? FieldInput.optionalText(header.value(.identifier, in: record))
                    if let key, header.value(.record, in: record).flatMap(FieldInput.optionalText) != nil {
                        keysOfUnreadable[record.line] = key
                    }
                }
            }
        }
        let gathered = ImportedInvoice.gather(rows, unreadable: skipped, keysOfUnreadable: keysOfUnreadable)
        return (gathered.invoices, skipped + gathered.skipped)
    }

    private static func line(of error: CSVFileError) -> Int {
        switch error { case .notUTF8(let line): return line }
    }

    /// "a quote inside..." → "A quote inside...".
    static func sentence(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
}
