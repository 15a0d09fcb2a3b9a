/// Where each known column is in a file's records, read from its header record.
struct InvoiceCSVHeader: Sendable {
    let indices: [InvoiceCSVColumn: Int]
    /// Header cells that name no known column, as written (a long one shortened).
    let ignored: [String]
    let fieldCount: Int

    init(_ record: CSVRecord) throws(ImportError) {
        var indices: [InvoiceCSVColumn: Int] = [:]
        var ignored: [String] = []
        for (index, cell) in record.fields.enumerated() {
            guard let column = InvoiceCSVColumn(header: cell) else {
                if !cell.trimmingCharacters(in: .whitespaces).isEmpty { ignored.append(EchoedInput.plain(cell)) }
                continue
            }
            if indices[column] != nil { throw .duplicateColumn(column.rawValue) }
            indices[column] = index
        }
        let clientsOnly = !indices.isEmpty && indices.keys.allSatisfy { InvoiceCSVColumn.clientColumns.contains($0) }
        var missing = clientsOnly ? [] : InvoiceCSVColumn.required.filter { indices[$0] == nil }.map(\.rawValue)
        if !clientsOnly && indices[.amount] == nil && indices[.record] == nil { missing.insert("amount (or record)", at: 0) }
        if indices[.clientName] == nil && indices[.clientEmail] == nil {
            missing.insert("client_name (or client_email)", at: 0)
        }
        if !missing.isEmpty {
            throw .missingColumns(missing, found: record.fields.filter { !$0.isEmpty }.map(EchoedInput.plain))
        }
        self.indices = indices
        self.ignored = ignored
        self.fieldCount = record.fields.count
    }

    /// The record's value in `column`, with the export's formula protection undone
    /// (``CSVCell/decode(_:)``); nil when the file has no such column.
    func value(_ column: InvoiceCSVColumn, in record: CSVRecord) -> String? {
        guard let index = indices[column], index < record.fields.count else { return nil }
        return CSVCell.decode(record.fields[index])
    }

    /// Whether the file holds clients alone (`/clients.csv`): client columns, and none of an
    /// invoice's.
    var isClientFile: Bool { indices.keys.allSatisfy { InvoiceCSVColumn.clientColumns.contains($0) } }
}
