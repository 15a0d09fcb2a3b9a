import Foundation

/// A CSV file to import: its header, how many records follow it, and the records again,
/// piece by piece (``Records``), so the file is never held whole.
struct ImportFile: Sendable {
    let source: ImportSource
    let header: InvoiceCSVHeader
    /// The data records after the header, malformed ones included.
    let recordCount: Int

    /// Reads the file once: its header, and the records counted (which also checks that it
    /// is all UTF-8 before anything is imported).
    /// - Throws: ``ImportError`` when the file cannot be read, is not UTF-8, is empty, or its
    ///   header is malformed or lacks a required column.
    init(_ source: ImportSource) throws(ImportError) {
        var stream = try source.stream()
        var header: InvoiceCSVHeader?
        var count = 0
        while let rows = try stream.next() {
            for row in rows {
                guard header == nil else { count += 1; continue }
                switch row {
                case .record(let record): header = try InvoiceCSVHeader(record)
                case .malformed(let syntax): throw .malformedHeader(syntax)
                }
            }
        }
        guard let header else { throw .empty }
        self.source = source
        self.header = header
        self.recordCount = count
    }

    /// The records after the header, piece by piece.
    func records() throws(ImportError) -> Records {
        Records(stream: try source.stream())
    }

    /// The data records of a file, a piece at a time (the header left out).
    struct Records {
        var stream: CSVStream
        private var headerSkipped = false

        init(stream: CSVStream) { self.stream = stream }

        /// The next piece's records; nil at the end.
        mutating func next() throws(ImportError) -> [CSVRow]? {
            guard var rows = try stream.next() else { return nil }
            if !headerSkipped, !rows.isEmpty {
                rows.removeFirst()
                headerSkipped = true
            }
            return rows
        }
    }

    /// "a quote inside..." → "A quote inside...".
    static func sentence(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
}
