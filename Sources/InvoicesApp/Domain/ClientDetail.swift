import Foundation
import ObjectGraph

/// A client's page: its details, its invoices, and its money per currency.
/// `Sendable`, and `Codable` for `/clients/{id}.json`.
///
/// Totals are per currency (``CurrencyTotals``), never added across currencies:
/// - ``totals``: what was billed, the invoices sent or paid (drafts and cancelled ones
///   are not billed);
/// - ``balance``: what the client owes, the invoices sent and not yet paid, overdue ones
///   included;
/// - ``overdue``: the part of the balance past its due date.
public struct ClientDetail: Sendable, Hashable, Codable, Identifiable {
    public let id: Int64
    public let address: ClientAddress
    public let createdAt: Date
    /// Newest first (by issue date, then identifier).
    public let invoices: [InvoiceSummary]
    public let totals: CurrencyTotals
    public let balance: CurrencyTotals
    public let overdue: CurrencyTotals

    /// Reads the client and its invoices (one query for the invoices). Call it on the
    /// client's context queue.
    public init(_ client: Client, today: CalendarDay = .today) {
        id = client.objectID.primaryKey ?? 0
        address = ClientAddress(client)
        createdAt = client.createdAt
        let summaries = client.invoices.map { InvoiceSummary($0, today: today) }
        invoices = summaries.sorted {
            ($0.issueDate, $0.number, $0.id) > ($1.issueDate, $1.number, $1.id)
        }
        totals = Self.totals(of: summaries)
        balance = Self.balance(of: summaries)
        overdue = CurrencyTotals(summaries.filter(\.isOverdue).map(\.balance))
    }

    /// Per currency, the invoices sent or paid.
    public static func totals(of invoices: [InvoiceSummary]) -> CurrencyTotals {
        CurrencyTotals(invoices.filter { $0.status == .sent || $0.status == .paid }.map(\.amount))
    }

    /// Per currency, what the invoices sent and unpaid still owe (overdue ones included):
    /// their amounts less the payments received.
    public static func balance(of invoices: [InvoiceSummary]) -> CurrencyTotals {
        CurrencyTotals(invoices.filter { $0.status == .sent }.map(\.balance))
    }
}
