import Foundation
import HTTPTypes
import ObjectGraph
import WebServer

/// `/clients`, `/invoices` and their `.json` twins; `/invoices.csv`.
extension Dashboard {
    func addListRoutes(to router: Router) {
        router.get("/clients", immediate: { [self] request in
            keptPage(.clients(ClientQuery(parameters: Self.parameters(request))), request)
        }) { [self] request in try await clientList(request) }
        router.get("/clients.json") { [self] request in
            try .json(try await stack.clientPage(ClientQuery(parameters: Self.parameters(request))),
                      encoder: Self.jsonEncoder())
        }
        router.get("/invoices", immediate: { [self] request in
            keptPage(.invoices(InvoiceQuery(parameters: Self.parameters(request))), request)
        }) { [self] request in try await invoiceList(request) }
        router.get("/invoices.json") { [self] request in
            let query = InvoiceQuery(parameters: Self.parameters(request))
            return try .json(try await stack.invoicePage(query, today: today), encoder: Self.jsonEncoder())
        }
        router.get("/invoices.csv") { [self] request in try await invoiceCSV(request) }
    }

    private func clientList(_ request: Request) async throws -> Response {
        let query = ClientQuery(parameters: Self.parameters(request))
        return try await readPage(.clients(query), request, notFound: "client") { [stack] key in
            let page = try await stack.clientPage(query)
            return ReadPage(template: "clients/index", title: "Clients", section: "clients",
                            model: ClientListPage(page, query: query, beingEdited: Set(key.editedClients)))
        }
    }

    private func invoiceList(_ request: Request) async throws -> Response {
        let query = InvoiceQuery(parameters: Self.parameters(request))
        return try await readPage(.invoices(query), request, notFound: "invoice") { [stack] key in
            let page = try await stack.invoicePage(query, today: key.today)
            return ReadPage(template: "invoices/index", title: "Invoices", section: "invoices",
                            model: InvoiceListPage(page, query: query, beingEdited: Set(key.editedInvoices)))
        }
    }

    /// Every invoice of the list as CSV, filters and sort applied, no paging.
    private func invoiceCSV(_ request: Request) async throws -> Response {
        let query = InvoiceQuery(parameters: Self.parameters(request))
        let invoices = try await stack.invoiceSummaries(query, today: today)
        var lines = ["identifier,client,amount,currency,status,issue_date,due_date"]
        lines.reserveCapacity(invoices.count + 1)
        for invoice in invoices {
            lines.append([invoice.identifier, invoice.clientName, invoice.amount.plainAmount, invoice.amount.currency,
                          invoice.displayStatus, invoice.issueDate.description, invoice.dueDate.description]
                .map(CSVCell.encode).joined(separator: ","))
        }
        var response = Response.bytes(Array((lines.joined(separator: "\r\n") + "\r\n").utf8),
                                      contentType: "text/csv; charset=utf-8")
        response.headers[.contentDisposition] = "attachment; filename=\"invoices.csv\""
        return response
    }
}
