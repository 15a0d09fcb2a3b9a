import Foundation
import ObjectGraph

/// The invoice CSV file `/invoices.csv` writes, in exactly the columns `invoices import`
/// reads (``InvoiceCSVColumn``, every one, in its order): one row per line item and one per
/// payment, each repeating its invoice's and client's columns, so that the file imported into
/// an empty database gives the same invoices, clients, lines and payments.
///
/// Build it on the invoices' context queue; the text leaves the block, the objects do not.
enum InvoiceCSVExport {
    /// The whole file: the header, then the rows of `invoices` in their order.
    static func text(_ invoices: [Invoice]) -> String {
        var lines = [CSVDocument.line(InvoiceCSVColumn.allCases.map(\.rawValue))]
        lines.reserveCapacity(invoices.count * 4 + 1)
        for invoice in invoices {
            for row in rows(of: invoice) {
                lines.append(CSVDocument.line(InvoiceCSVColumn.allCases.map { row[$0] ?? "" }))
            }
        }
        return CSVDocument.text(lines)
    }

    /// One invoice's rows: its lines in order (or one `invoice` row when it has none), then
    /// its payments by date.
    static func rows(of invoice: Invoice) -> [[InvoiceCSVColumn: String]] {
        let common = invoiceColumns(invoice).merging(clientColumns(invoice.client)) { first, _ in first }
        var rows: [[InvoiceCSVColumn: String]] = []
        let lines = invoice.currentLines
        if lines.isEmpty {
            rows.append(common.merging([.record: InvoiceCSVRecordKind.invoice.rawValue]) { _, new in new })
        }
        for line in lines {
            rows.append(common.merging([
                .record: InvoiceCSVRecordKind.line.rawValue,
                .lineDescription: line.itemDescription, .lineQuantity: "\(line.quantity)",
                .lineUnitPrice: "\(line.unitPrice)", .lineTaxRate: "\(line.taxRate)",
            ]) { _, new in new })
        }
        let payments = invoice.payments.filter { !$0.isDeleted }
            .sorted { ($0.date, $0.objectID.primaryKey ?? .max) < ($1.date, $1.objectID.primaryKey ?? .max) }
        for payment in payments {
            rows.append(common.merging([
                .record: InvoiceCSVRecordKind.payment.rawValue,
                .paymentDate: payment.day.description, .paymentAmount: payment.money.plainAmount,
                .paymentMethod: payment.method, .paymentNote: payment.note ?? "",
            ]) { _, new in new })
        }
        return rows
    }

    /// The key that groups an invoice's rows: its number, or `draft-N` (its primary key) for
    /// a draft that has none.
    static func key(of invoice: Invoice) -> String {
        invoice.identifier ?? "draft-\(invoice.objectID.primaryKey ?? 0)"
    }

    private static func invoiceColumns(_ invoice: Invoice) -> [InvoiceCSVColumn: String] {
        [.invoice: key(of: invoice), .identifier: invoice.identifier ?? "", .status: invoice.status.rawValue,
         .currency: invoice.currency, .issueDate: invoice.issueDay.description, .dueDate: invoice.dueDay.description,
         .amount: invoice.money.plainAmount, .notes: invoice.notes ?? ""]
    }

    /// A client's columns (also the rows of `/clients.csv`).
    static func clientColumns(_ client: Client?) -> [InvoiceCSVColumn: String] {
        guard let client else { return [:] }
        return [.clientName: client.name, .clientEmail: client.email ?? "", .clientNumber: client.number ?? "",
                .clientStreet: client.street ?? "", .clientZip: client.zip ?? "", .clientCity: client.city ?? "",
                .clientCountry: client.country ?? ""]
    }
}
