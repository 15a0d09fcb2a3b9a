/// What an import did: how many invoices it imported, which rows it skipped and why, and
/// which clients it created. `Codable` for the upload page's JSON.
public struct ImportReport: Sendable, Hashable, Codable {
    /// A row that was not imported, with every reason found.
    public struct SkippedRow: Error, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The line the row starts on in the file (the header is line 1).
        public let line: Int
        public let reasons: [String]

        public init(line: Int, reasons: [String]) {
            self.line = line
            self.reasons = reasons
        }

        /// `"Line 7: Amount has more decimal places than JPY allows (0)."`
        public var description: String { "Line \(line): " + reasons.joined(separator: " ") }
    }

    /// Data rows in the file (records after the header, malformed ones included).
    public var totalRows = 0
    /// Invoices in the file: as many as rows in a one-amount file; fewer in a file of line and
    /// payment rows (several rows per invoice).
    public var totalInvoices = 0
    public var importedInvoices = 0
    /// Whether the file held clients alone (`/clients.csv`): no invoices, and
    /// ``createdClients`` and ``matchedClients`` say what became of its rows.
    public var isClientFile = false
    /// In line order.
    public var skipped: [SkippedRow] = []
    /// Names of the clients the import created, in the order they were created.
    public var createdClients: [String] = []
    /// How many existing clients received invoices.
    public var matchedClients = 0
    /// Header cells that name no known column.
    public var ignoredColumns: [String] = []

    public init() {}

    /// Whether every row was imported.
    public var isComplete: Bool { skipped.isEmpty }

    /// `"Imported 98 of 100 invoices; skipped 2 rows. Created 5 clients; 12 existing clients matched."`
    public var summary: String {
        if isClientFile {
            return "Read \(totalRows) client row\(totalRows == 1 ? "" : "s"): created \(createdClients.count), "
                + "\(matchedClients) already there" + (skipped.isEmpty ? "." : "; skipped \(skipped.count).")
        }
        let invoices = totalInvoices == 0 ? totalRows : totalInvoices
        var text = "Imported \(importedInvoices) of \(invoices) invoice\(invoices == 1 ? "" : "s")"
        if invoices != totalRows { text += " (\(totalRows) row\(totalRows == 1 ? "" : "s"))" }
        text += skipped.isEmpty ? "." : "; skipped \(skipped.count) row\(skipped.count == 1 ? "" : "s")."
        text += " Created \(createdClients.count) client\(createdClients.count == 1 ? "" : "s");"
        text += " \(matchedClients) existing client\(matchedClients == 1 ? "" : "s") matched."
        return text
    }

    /// The summary, the ignored columns and one line per skipped row: what `invoices import`
    /// prints.
    public var lines: [String] {
        var lines = [summary]
        if !ignoredColumns.isEmpty { lines.append("Ignored columns: \(ignoredColumns.joined(separator: ", ")).") }
        lines += skipped.map(\.description)
        return lines
    }
}
