import Foundation
import ObjectGraph

/// An invoice as its page (and its print layout) shows it, with the client's address.
/// `Sendable`, and `Codable` for `/invoices/{id}.json`.
public struct InvoiceDetail: Sendable, Hashable, Codable, Identifiable {
    public let summary: InvoiceSummary
    public let notes: String?
    /// The client the invoice is addressed to.
    public let client: ClientAddress
    /// Days past the due date for an overdue invoice, else nil.
    public let daysOverdue: Int?
    /// Oldest first.
    public let payments: [PaymentSummary]
    /// In print order.
    public let lines: [LineSummary]

    public var id: Int64 { summary.id }

    /// Reads the invoice and its client. Call it on the invoice's context queue.
    public init(_ invoice: Invoice, today: CalendarDay = .today) {
        summary = InvoiceSummary(invoice, today: today)
        notes = invoice.notes
        client = invoice.client.map(ClientAddress.init) ?? ClientAddress.unknown
        daysOverdue = summary.isOverdue ? summary.dueDate.days(until: today) : nil
        payments = invoice.payments.filter { !$0.isDeleted }.map(PaymentSummary.init)
            .sorted { ($0.day, $0.id) < ($1.day, $1.id) }
        lines = invoice.currentLines.map(LineSummary.init)
    }

    /// The sum of the lines' rounded nets.
    public var netTotal: Decimal { lines.reduce(0) { $0 + $1.net } }

    /// The sum of the lines' rounded taxes.
    public var taxTotal: Decimal { lines.reduce(0) { $0 + $1.tax } }
}

/// One line of an invoice, as its page and PDF show it; net and tax already rounded
/// (``LineItem/net``).
public struct LineSummary: Sendable, Hashable, Codable {
    public let description: String
    public let quantity: Decimal
    public let unitPrice: Decimal
    /// Percent.
    public let taxRate: Decimal
    public let net: Decimal
    public let tax: Decimal

    /// Reads the line's values. Call it on the line's context queue.
    public init(_ line: LineItem) {
        description = line.itemDescription
        quantity = line.quantity
        unitPrice = line.unitPrice
        taxRate = line.taxRate
        net = line.net
        tax = line.tax
    }
}

/// One payment of an invoice, as its page and PDF show it.
public struct PaymentSummary: Sendable, Hashable, Codable, Identifiable {
    public let id: Int64
    public let day: CalendarDay
    public let amount: Money
    public let method: String
    public let note: String?

    /// Reads the payment's values. Call it on the payment's context queue.
    public init(_ payment: Payment) {
        id = payment.objectID.primaryKey ?? 0
        day = payment.day
        amount = payment.money
        method = payment.method
        note = payment.note
    }
}

/// The name and address lines of a client, as printed on an invoice.
public struct ClientAddress: Sendable, Hashable, Codable {
    public let id: Int64
    public let name: String
    public let email: String?
    public let number: String?
    public let street: String?
    public let zip: String?
    public let city: String?
    public let country: String?

    /// Reads the client's values. Call it on the client's context queue.
    public init(_ client: Client) {
        id = client.objectID.primaryKey ?? 0
        name = client.name
        email = client.email
        number = client.number
        street = client.street
        zip = client.zip
        city = client.city
        country = client.country
    }

    /// An address from its parts (a PDF made without a context, a test).
    public init(id: Int64, name: String, email: String? = nil, number: String? = nil, street: String? = nil,
                zip: String? = nil, city: String? = nil, country: String? = nil) {
        self.id = id
        self.name = name
        self.email = email
        self.number = number
        self.street = street
        self.zip = zip
        self.city = city
        self.country = country
    }

    static let unknown = ClientAddress(id: 0, name: "")

    /// The non-empty address lines, in postal order: street, "zip city", country.
    public var lines: [String] {
        let cityLine = [zip, city].compactMap { $0 }.joined(separator: " ")
        return [street, cityLine.isEmpty ? nil : cityLine, country].compactMap { $0 }
    }
}
