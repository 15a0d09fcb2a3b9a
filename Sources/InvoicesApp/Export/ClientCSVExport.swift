import Foundation
import ObjectGraph

/// The client CSV file `/clients.csv` writes: one row per client, in the `client_*` columns
/// an invoice file uses (``InvoiceCSVColumn/clientColumns``), so `invoices import` reads it
/// back as clients (a file with no invoice columns imports clients alone).
enum ClientCSVExport {
    /// The whole file: the header, then a row per client in their order.
    static func text(_ clients: [Client]) -> String {
        let columns = InvoiceCSVColumn.clientColumns
        var lines = [CSVDocument.line(columns.map(\.rawValue))]
        lines.reserveCapacity(clients.count + 1)
        for client in clients {
            let row = InvoiceCSVExport.clientColumns(client)
            lines.append(CSVDocument.line(columns.map { row[$0] ?? "" }))
        }
        return CSVDocument.text(lines)
    }
}
