import Foundation
import HTTPTypes
import WebServer

/// `/invoices.csv` and `/clients.csv`: downloads of a list (filters and sort applied, no
/// paging) in the columns `invoices import` reads (``InvoiceCSVExport``, ``ClientCSVExport``).
enum CSVDownload {
    static func response(_ text: String, filename: String) -> Response {
        var response = Response.bytes(Array(text.utf8), contentType: "text/csv; charset=utf-8")
        response.headers[.contentDisposition] = "attachment; filename=\"\(filename)\""
        return response
    }
}
