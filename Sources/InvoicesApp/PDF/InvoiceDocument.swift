import Foundation

/// What an invoice's PDF prints: a value read from the context in one go, then laid out off
/// its queue by ``InvoicePDF``.
public struct InvoiceDocument: Sendable, Hashable {
    /// One printed line.
    public struct Line: Sendable, Hashable {
        public var description: String
        public var quantity: Decimal
        public var unitPrice: Decimal
        /// Percent, e.g. 19 for 19 %.
        public var taxRate: Decimal
        /// quantity × unit price, rounded to the currency's minor units.
        public var net: Decimal
        /// net × tax rate, rounded to the currency's minor units.
        public var tax: Decimal

        /// A line whose net and tax are worked out and rounded to `currency`'s minor units.
        public init(description: String, quantity: Decimal, unitPrice: Decimal, taxRate: Decimal, currency: Currency) {
            self.description = description
            self.quantity = quantity
            self.unitPrice = unitPrice
            self.taxRate = taxRate
            net = currency.rounded(quantity * unitPrice)
            tax = currency.rounded(net * taxRate / 100)
        }
    }

    /// One payment received.
    public struct Payment: Sendable, Hashable {
        public var day: CalendarDay
        public var method: String
        public var amount: Decimal
        public var note: String?
    }

    /// The invoice's number; empty for a draft that has none yet.
    public var number: String
    public var isDraft: Bool
    public var issueDay: CalendarDay
    public var dueDay: CalendarDay
    public var currency: String
    public var client: ClientAddress
    public var lines: [Line]
    public var payments: [Payment]
    public var notes: String?

    public var netTotal: Decimal { lines.reduce(0) { $0 + $1.net } }
    public var taxTotal: Decimal { lines.reduce(0) { $0 + $1.tax } }
    public var total: Decimal { netTotal + taxTotal }
    public var paid: Decimal { payments.reduce(0) { $0 + $1.amount } }
    public var balance: Decimal { total - paid }

    /// How amounts were rounded, printed under the totals.
    public var roundingRule: String {
        let places = Currency.named(currency)?.minorUnits ?? 2
        return "Each line's net amount and tax are rounded half away from zero to \(places) decimal "
            + "place\(places == 1 ? "" : "s") (the minor unit of \(currency)); totals add the rounded lines."
    }

    /// The title of the PDF and of its first page.
    public var title: String {
        isDraft ? (number.isEmpty ? "Draft invoice" : "Draft invoice \(number)") : "Invoice \(number)"
    }

    /// The file name offered for download.
    public var fileName: String {
        let safe = number.unicodeScalars.map { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0)) ? Character($0) : "_" }
        return safe.isEmpty ? "invoice-draft.pdf" : "invoice-\(String(safe))\(isDraft ? "-draft" : "").pdf"
    }
}

extension InvoiceDocument {
    /// The document of an invoice: its lines, in order (an invoice without lines, which only
    /// code setting the amount alone makes, prints its amount as one untaxed line).
    public init(_ detail: InvoiceDetail) {
        let summary = detail.summary
        number = summary.identifier ?? "Draft"
        isDraft = summary.status == .draft
        issueDay = summary.issueDate
        dueDay = summary.dueDate
        currency = summary.amount.currency
        client = detail.client
        let currency = Currency.named(summary.amount.currency) ?? Currency(code: summary.amount.currency, name: "", minorUnits: 2)
        lines = detail.lines.map {
            Line(description: $0.description, quantity: $0.quantity, unitPrice: $0.unitPrice, taxRate: $0.taxRate,
                 currency: currency)
        }
        if lines.isEmpty && summary.amount.amount != 0 {
            lines = [Line(description: InvoicesModel.migratedDescription(notes: detail.notes), quantity: 1,
                          unitPrice: summary.amount.amount, taxRate: 0, currency: currency)]
        }
        payments = detail.payments.map { Payment(day: $0.day, method: $0.method, amount: $0.amount.amount, note: $0.note) }
        notes = detail.notes
    }
}
