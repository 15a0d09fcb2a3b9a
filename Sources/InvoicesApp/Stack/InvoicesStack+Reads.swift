import Foundation
import ObjectGraph

/// The reads pages make, on the main context, as `async` calls returning `Sendable` values.
/// Each is one block on the main queue: the page model is read there, and rendering happens
/// off the queue.
extension InvoicesStack {
    /// One page of the client list.
    public func clientPage(_ query: ClientQuery) async throws -> Page<ClientSummary> {
        let main = self.main
        return try await main.perform { try main.clientPage(query) }
    }

    /// A client's page; nil when no client has this primary key.
    public func clientDetail(id: Int64, today: CalendarDay = .today) async throws -> ClientDetail? {
        let main = self.main
        return try await main.perform { try main.clientDetail(id: id, today: today) }
    }

    /// One page of the invoice list.
    public func invoicePage(_ query: InvoiceQuery, today: CalendarDay = .today) async throws -> Page<InvoiceSummary> {
        let main = self.main
        return try await main.perform { try main.invoicePage(query, today: today) }
    }

    /// One page of the invoice list and the whole list's totals per currency, read together:
    /// the totals' counts are the page's total count, so the list is not counted twice.
    public func invoiceListing(_ query: InvoiceQuery, today: CalendarDay = .today) async throws
        -> (page: Page<InvoiceSummary>, totals: [InvoiceListTotal]) {
        let main = self.main
        return try await main.perform { () throws -> (Page<InvoiceSummary>, [InvoiceListTotal]) in
            let totals = try main.invoiceTotals(query, today: today)
            let page = try main.invoicePage(query, today: today, knownTotal: totals.reduce(0) { $0 + $1.count })
            return (page, totals)
        }
    }

    /// An invoice's page; nil when no invoice has this primary key.
    public func invoiceDetail(id: Int64, today: CalendarDay = .today) async throws -> InvoiceDetail? {
        let main = self.main
        return try await main.perform { try main.invoiceDetail(id: id, today: today) }
    }

    /// `/invoices.csv`: every invoice of a list, without paging, with its lines and payments.
    public func invoiceCSV(_ query: InvoiceQuery, today: CalendarDay = .today) async throws -> String {
        let main = self.main
        return try await main.perform { InvoiceCSVExport.text(try main.listedInvoices(query, today: today)) }
    }

    /// `/clients.csv`: every client of a list, searched and sorted, without paging.
    public func clientCSV(_ query: ClientQuery) async throws -> String {
        let main = self.main
        return try await main.perform { ClientCSVExport.text(try main.listedClients(query)) }
    }

    /// Every invoice of a list, without paging.
    public func invoiceSummaries(_ query: InvoiceQuery, today: CalendarDay = .today) async throws -> [InvoiceSummary] {
        let main = self.main
        return try await main.perform { try main.invoiceSummaries(query, today: today) }
    }
}
