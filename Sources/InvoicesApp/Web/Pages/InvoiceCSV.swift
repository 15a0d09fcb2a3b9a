import Foundation
import HTTPTypes
import WebServer

/// `/invoices.csv`: every invoice of the list, filters and sort applied, no paging.
enum InvoiceCSV {
    static func response(_ invoices: [InvoiceSummary]) -> Response {
        var lines = ["identifier,client,amount,currency,status,issue_date,due_date"]
        lines.reserveCapacity(invoices.count + 1)
        for invoice in invoices {
            lines.append([invoice.identifier ?? "", invoice.clientName, invoice.amount.plainAmount, invoice.amount.currency,
                          invoice.displayStatus, invoice.issueDate.description, invoice.dueDate.description]
                .map(CSVCell.encode).joined(separator: ","))
        }
        var response = Response.bytes(Array((lines.joined(separator: "\r\n") + "\r\n").utf8),
                                      contentType: "text/csv; charset=utf-8")
        response.headers[.contentDisposition] = "attachment; filename=\"invoices.csv\""
        return response
    }
}
