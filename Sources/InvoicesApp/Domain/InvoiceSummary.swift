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
    public let identifier: String
    /// The client's primary key (`/clients/{clientID}`); 0 when unknown.
    public let clientID: Int64
    public let clientName: String
    public let amount: Money
    public let status: InvoiceStatus
    /// Sent and past the due date on the day the summary was built.
    public let isOverdue: Bool
    public let issueDate: CalendarDay
    public let dueDate: CalendarDay

    /// `"overdue"` for an overdue invoice, else the status' raw value: what a status column
    /// or badge shows.
    public var displayStatus: String { isOverdue ? "overdue" : status.rawValue }

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
    }

    public init(id: Int64, identifier: String, clientID: Int64, clientName: String, amount: Money,
                status: InvoiceStatus, isOverdue: Bool, issueDate: CalendarDay, dueDate: CalendarDay) {
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
