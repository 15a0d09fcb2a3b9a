import Foundation
import ObjectGraph

/// What the invoices of a list add up to, per currency (all pages, not only the one shown):
/// how many, their amounts, the payments recorded, and what the sent ones still owe.
/// Currencies are never added together.
public struct InvoiceListTotal: Sendable, Hashable, Codable {
    public let currency: String
    public let count: Int
    public let amount: Money
    public let paid: Money
    /// What the sent invoices still owe (drafts, cancelled and paid invoices owe nothing).
    public let outstanding: Money

    public init(currency: String, count: Int, amount: Decimal, paid: Decimal, outstanding: Decimal) {
        self.currency = currency
        self.count = count
        self.amount = Money(amount: amount, currency: currency)
        self.paid = Money(amount: paid, currency: currency)
        self.outstanding = Money(amount: outstanding, currency: currency)
    }

    /// The totals of groups of invoices (currency, status, count, amount, paid), per currency.
    static func folding(_ groups: [(String, InvoiceStatus, Int, Decimal, Decimal)]) -> [InvoiceListTotal] {
        let byCurrency = Dictionary(grouping: groups, by: \.0)
        return byCurrency.keys.sorted().map { currency in
            let rows = byCurrency[currency] ?? []
            return InvoiceListTotal(currency: currency, count: rows.reduce(0) { $0 + $1.2 },
                                    amount: rows.reduce(0) { $0 + $1.3 }, paid: rows.reduce(0) { $0 + $1.4 },
                                    outstanding: rows.filter { $0.1 == .sent }.reduce(0) { $0 + $1.3 - $1.4 })
        }
    }
}

extension ManagedObjectContext {
    /// The totals per currency of the invoices `query` selects, sorted by currency: one
    /// aggregate query (exact Decimal sums, unsaved changes counted), or, for one client's
    /// invoices, added up from the client's invoices in memory as that list is read.
    public func invoiceTotals(_ query: InvoiceQuery, today: CalendarDay = .today) throws -> [InvoiceListTotal] {
        let predicate = Self.invoicePredicate(query, today: today)
        if let clientID = query.clientID {
            guard let client = try existingObject(Client.self, primaryKey: clientID) else { return [] }
            let invoices = client.invoices.filter { invoice in predicate.map { (try? $0.evaluate(invoice)) ?? false } ?? true }
            return InvoiceListTotal.folding(invoices.map { ($0.currency, $0.status, 1, $0.amount, $0.paidAmount) })
        }
        let request = AggregateRequest(Invoice.self, predicate: predicate, groupBy: \.currency, \.status,
                                       computing: .count, .sum(\.amount), .sum(\.paidAmount))
        return InvoiceListTotal.folding(try aggregate(request))
    }
}
