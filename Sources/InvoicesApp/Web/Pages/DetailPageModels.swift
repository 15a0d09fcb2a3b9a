import Foundation

/// `/clients/{pk}`: the client's details, its invoices and its money per currency.
struct ClientPage: Sendable {
    let id: Int64
    let name: String
    let email: String
    let number: String
    let addressLines: [String]
    let created: String
    let invoices: [InvoiceRow]
    let hasInvoices: Bool
    let invoiceCount: Int
    /// Sent or paid, per currency.
    let totals: [String]
    /// Sent and unpaid, per currency.
    let balance: [String]
    let overdue: [String]
    let beingEdited: Bool
    /// Saved changes of this client that are not on disk (set aside by the writer).
    let setAside: [SetAsideNotice]
    let hasSetAside: Bool

    init(_ client: ClientDetail, beingEdited: Bool, invoicesBeingEdited: Set<Int64>, setAside: [SetAsideNotice] = []) {
        id = client.id
        name = client.address.name
        email = client.address.email ?? ""
        number = client.address.number ?? ""
        addressLines = client.address.lines
        created = CalendarDay(client.createdAt).description
        invoices = client.invoices.map { InvoiceRow($0, beingEdited: invoicesBeingEdited.contains($0.id)) }
        hasInvoices = !client.invoices.isEmpty
        invoiceCount = client.invoices.count
        totals = client.totals.formatted
        balance = client.balance.formatted
        overdue = client.overdue.formatted
        self.beingEdited = beingEdited
        self.setAside = setAside
        hasSetAside = !setAside.isEmpty
    }
}

/// `/invoices/{pk}`: the invoice as printed.
struct InvoicePage: Sendable {
    let id: Int64
    let identifier: String
    let amount: String
    let status: String
    let isOverdue: Bool
    let daysOverdue: Int
    let issued: String
    let due: String
    let notes: String
    let clientID: Int64
    let clientName: String
    let clientEmail: String
    let addressLines: [String]
    let beingEdited: Bool
    /// Saved changes of this invoice that are not on disk (set aside by the writer).
    let setAside: [SetAsideNotice]
    let hasSetAside: Bool
    let payments: [PaymentRow]
    let hasPayments: Bool
    let paid: String
    let balance: String
    /// Sent and still owing: a payment can be recorded.
    let takesPayments: Bool

    let lines: [LineRow]
    let net: String
    let tax: String
    /// How the lines are rounded (``Invoice/roundingRule``).
    let roundingRule: String

    /// A unit price as typed when it has more decimals than the currency (0.333 EUR), so
    /// that it is not shown rounded.
    static func unitPrice(_ price: Decimal, currency: String) -> String {
        let minorUnits = Currency.named(currency)?.minorUnits ?? 0
        return price.decimalPlaces > minorUnits ? "\(price) \(currency)" : Money(amount: price, currency: currency).formatted
    }

    struct LineRow: Sendable {
        let description: String
        let quantity: String
        let unitPrice: String
        let taxRate: String
        let net: String
    }

    struct PaymentRow: Sendable {
        let day: String
        let method: String
        let amount: String
        let note: String
    }

    init(_ invoice: InvoiceDetail, beingEdited: Bool, setAside: [SetAsideNotice] = []) {
        id = invoice.id
        identifier = invoice.summary.number
        amount = invoice.summary.amount.formatted
        status = invoice.summary.displayStatus
        isOverdue = invoice.summary.isOverdue
        daysOverdue = invoice.daysOverdue ?? 0
        issued = invoice.summary.issueDate.description
        due = invoice.summary.dueDate.description
        notes = invoice.notes ?? ""
        clientID = invoice.client.id
        clientName = invoice.client.name
        clientEmail = invoice.client.email ?? ""
        addressLines = invoice.client.lines
        self.beingEdited = beingEdited
        self.setAside = setAside
        hasSetAside = !setAside.isEmpty
        payments = invoice.payments.map {
            PaymentRow(day: $0.day.description, method: $0.method, amount: $0.amount.formatted, note: $0.note ?? "")
        }
        hasPayments = !payments.isEmpty
        let currency = invoice.summary.amount.currency
        lines = invoice.lines.map {
            LineRow(description: $0.description, quantity: "\($0.quantity)",
                    unitPrice: Self.unitPrice($0.unitPrice, currency: currency), taxRate: "\($0.taxRate) %",
                    net: Money(amount: $0.net, currency: currency).formatted)
        }
        net = Money(amount: invoice.netTotal, currency: currency).formatted
        tax = Money(amount: invoice.taxTotal, currency: currency).formatted
        roundingRule = Invoice.roundingRule
        paid = invoice.summary.paid.formatted
        balance = invoice.summary.balance.formatted
        takesPayments = invoice.summary.status == .sent && invoice.summary.balance.amount > 0
    }
}
