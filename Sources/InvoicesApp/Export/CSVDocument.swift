/// How exported CSV files are put together: cells encoded by ``CSVCell``, separated by
/// commas, records ended by CRLF (RFC 4180).
enum CSVDocument {
    /// One record.
    static func line(_ cells: [String]) -> String {
        cells.map(CSVCell.encode).joined(separator: ",")
    }

    /// The records as one file, each ended by CRLF.
    static func text(_ lines: [String]) -> String {
        lines.joined(separator: "\r\n") + "\r\n"
    }
}
