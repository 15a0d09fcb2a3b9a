import Foundation
import ObjectGraph

/// One invoice as a list row shows it: plain values, safe to send anywhere (`Sendable`) and
/// the row of `/invoices.json` (`Codable`).
///
/// Built inside a context's block from an ``Invoice`` (see ``init(_:today:)``); the managed
/// object never leaves the block.
public struct InvoiceSummary: Sendable, Hashable, Codable, Identifiable {
    /// The primary key (`/invoices/{id}`); 0 for an invoice not yet in the store.
    public let id: Int64
    /// The number; nil for a draft that has none yet (see ``number``).
    public let identifier: String?
    /// The client's primary key (`/clients/{clientID}`); 0 when unknown.
    public let clientID: Int64
    public let clientName: String
    public let amount: Money
    public let status: InvoiceStatus
    /// Sent and past the due date on the day the summary was built.
    public let isOverdue: Bool
    public let issueDate: CalendarDay
    public let dueDate: CalendarDay
    /// What the payments add up to.
    public let paid: Money

    /// What is still owed: the amount less the payments.
    public var balance: Money { Money(amount: amount.amount - paid.amount, currency: amount.currency) }

    /// `"overdue"` for an overdue invoice, `"partially paid"` for a sent one with some payments,
    /// else the status' raw value: what a status column or badge shows.
    public var displayStatus: String {
        if isOverdue { return "overdue" }
        if status == .sent && paid.amount > 0 { return "partially paid" }
        return status.rawValue
    }

    /// Reads the invoice's values. Call it on the invoice's context queue.
    public init(_ invoice: Invoice, today: CalendarDay = .today) {
        id = invoice.objectID.primaryKey ?? 0
        identifier = invoice.identifier
        let client = invoice.client
        clientID = client?.objectID.primaryKey ?? 0
        clientName = client?.name ?? ""
        amount = invoice.money
        status = invoice.status
        issueDate = invoice.issueDay
        dueDate = invoice.dueDay
        isOverdue = Invoice.isOverdue(status: status, dueDay: dueDate, today: today)
        paid = Money(amount: invoice.paidAmount, currency: invoice.currency)
    }

    /// The number, or "draft" for a draft that has none yet: what a page shows.
    public var number: String { Invoice.displayNumber(identifier, status: status) }

    public init(id: Int64, identifier: String?, clientID: Int64, clientName: String, amount: Money,
                status: InvoiceStatus, isOverdue: Bool, issueDate: CalendarDay, dueDate: CalendarDay, paid: Decimal = 0) {
        self.paid = Money(amount: paid, currency: amount.currency)
        self.id = id
        self.identifier = identifier
        self.clientID = clientID
        self.clientName = clientName
        self.amount = amount
        self.status = status
        self.isOverdue = isOverdue
        self.issueDate = issueDate
        self.dueDate = dueDate
    }
}
