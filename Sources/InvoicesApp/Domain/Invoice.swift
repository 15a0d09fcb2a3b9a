import Foundation
import ObjectGraph

/// An invoice to a client, in one currency.
///
/// Rules checked at save: an identifier (unique) unless it is a draft, an amount of at least 0 with no more
/// decimals than its currency's minor units and equal to its lines' total, an ISO 4217 currency from ``Currency/all``
/// that has minor units, a due date not before the issue date, and a client. Identifier and
/// currency are one line; notes may span lines; none holds other control characters.
///
/// Dates are days: midnight UTC of the day (see ``CalendarDay``).
public final class Invoice: ManagedObject {
    /// Every change is kept with its old and new values: the object's history page reads them.
    override public class var recordsValuesInHistory: Bool { true }

    /// The invoice number printed on it ("INV-2025-00042"); unique. Nil for a draft until it
    /// is sent: ``InvoiceNumbering`` gives it then (a number may also be typed, or imported).
    @Attribute(.unique, .singleLine, .maxLength(64), .indexedForSubstringSearch) public var identifier: String?
    /// The total of the lines (nets and taxes), kept with the invoice by ``settleLines()`` so
    /// lists, totals, CSV and aggregates read it without loading every invoice's lines.
    /// At most 999,999,999,999,999.9999, so totals stay exact (see ``Money/maximumIntegerDigits``).
    @Attribute(.minimum(0), .maximum(Money.largestAmount)) public var amount: Decimal = 0
    /// An ISO 4217 code, upper case.
    @Attribute(.required, .singleLine) public var currency: String = "EUR"
    @Attribute(.multiLine, .maxLength(2000), .indexedForSubstringSearch) public var notes: String?
    /// Indexed with the issue date (see ``indexes``).
    @Attribute public var status: InvoiceStatus = .draft
    /// Indexed with the number (see ``indexes``): the invoice list's default order (newest
    /// first) reads the index backwards and stops after a page.
    @Attribute public var issueDate: Date = CalendarDay.today.date
    @Attribute public var dueDate: Date = CalendarDay.today.adding(days: 30).date
    @Relationship(isRequired: true) public var client: Client?
    /// What the payments add up to, kept with the invoice (``settlePayments()``) so lists and
    /// totals read it without loading every invoice's payments.
    @Attribute(.minimum(0)) public var paidAmount: Decimal = 0
    /// Deleting an invoice deletes its payments.
    @Relationship(inverse: \Payment.invoice, deleteRule: .cascade) public var payments: Set<Payment>
    /// The lines (in print order: ``currentLines``). Deleting an invoice deletes its lines.
    ///
    /// A set ordered by ``LineItem/position`` rather than an ordered to-many: SQLite 3.40's
    /// `PRAGMA integrity_check` wrongly reports the ordered relationship's `WITHOUT ROWID`
    /// order table as holding NULLs, and the dashboard's files are checked with it.
    @Relationship(inverse: \LineItem.invoice, deleteRule: .cascade) public var lines: Set<LineItem>

    /// The lists' pages are in issue-date order, then by number (then by key): an index
    /// ending in `issueDate, identifier` gives a page in that order from the index alone, so
    /// page 40 skips its 1,950 invoices inside the index, without looking up each one's row
    /// for its number (a look-up per skipped invoice made page 40 ten times page 1's cost).
    /// - `(issueDate, identifier)`: every invoice, and a range of issue dates;
    /// - `(status, issueDate, identifier)`: a status (`/invoices?status=sent`), counted from
    ///   the index alone too;
    /// - `(status, currency, issueDate, identifier)`: a status and a currency together;
    /// - `(status, currency, issueDate, amount, paidAmount)`: every column the list's totals
    ///   per currency read, summed from the index alone.
    public override class var indexes: [[AnyKeyPath]] {
        [[\Invoice.issueDate, \Invoice.identifier],
         [\Invoice.status, \Invoice.issueDate, \Invoice.identifier],
         [\Invoice.status, \Invoice.currency, \Invoice.issueDate, \Invoice.identifier],
         [\Invoice.status, \Invoice.currency, \Invoice.issueDate, \Invoice.amount, \Invoice.paidAmount]]
    }

    /// The number, or "draft" for a draft that has none yet.
    public var displayNumber: String { Self.displayNumber(identifier, status: status) }

    /// What a draft without a number shows in its place.
    public static let draftLabel = "draft"

    /// What an invoice sent in a form not yet saved shows: it is numbered by the save.
    public static let numberedOnSaveLabel = "numbered on save"

    /// The number, or what shows in its place: "draft", or, for an invoice that left draft in
    /// a form not saved yet, "numbered on save".
    public static func displayNumber(_ identifier: String?, status: InvoiceStatus) -> String {
        identifier ?? (status == .draft ? draftLabel : numberedOnSaveLabel)
    }

    /// The amount with its currency.
    public var money: Money { Money(amount: amount, currency: currency) }

    /// What is still owed: the amount less the payments.
    public var balance: Decimal { amount - paidAmount }

    /// Brings ``paidAmount`` and the status in step with the payments: a sent invoice paid in
    /// full becomes paid, a paid one that a changed payment leaves owing is sent again. Drafts
    /// and cancelled invoices keep their status. Whatever records a payment calls it.
    public func settlePayments() {
        let paid = payments.filter { !$0.isDeleted }.reduce(Decimal(0)) { $0 + $1.amount }
        if paidAmount != paid { paidAmount = paid }
        if status == .sent, amount > 0, balance <= 0 { status = .paid }
        if status == .paid, balance > 0, paid > 0 { status = .sent }
    }

    /// The lines not deleted, in order (by position, then by when they were made).
    public var currentLines: [LineItem] {
        lines.filter { !$0.isDeleted }.sorted { ($0.position, $0.objectID.primaryKey ?? .max) < ($1.position, $1.objectID.primaryKey ?? .max) }
    }

    /// Puts `ordered` (this invoice's lines) in that order.
    public func order(_ ordered: [LineItem]) {
        for (position, line) in ordered.enumerated() where line.position != position { line.position = position }
    }

    /// Adds a line at the end.
    @discardableResult
    public func appendLine(_ line: LineItem) -> LineItem {
        line.position = (currentLines.last?.position ?? -1) + 1
        line.invoice = self
        return line
    }

    /// The sum of the lines' rounded nets.
    public var netTotal: Decimal { lineTotals.net }

    /// The sum of the lines' rounded taxes.
    public var taxTotal: Decimal { lineTotals.tax }

    /// Nets and taxes of the current lines, summed in one pass (each line's net is rounded
    /// once, and its tax taken from it).
    public var lineTotals: (net: Decimal, tax: Decimal) {
        lines.reduce(into: (net: Decimal(0), tax: Decimal(0))) { sums, line in
            guard !line.isDeleted else { return }
            let amounts = line.amounts
            sums.net += amounts.net
            sums.tax += amounts.tax
        }
    }

    /// Brings ``amount`` in step with the lines, and the status with it (a paid invoice whose
    /// total grows is owed again, see ``settlePayments()``). Whatever changes lines calls it.
    public func settleLines() {
        let sums = lineTotals
        if amount != sums.net + sums.tax { amount = sums.net + sums.tax }
        settlePayments()
    }

    /// Replaces the lines with one: quantity 1, `amount` as its unit price, no tax. What an
    /// invoice of the one-amount format (version 1 files, CSV imports) becomes.
    /// - Parameter description: the line's; the first line of `notes`, or "Amount invoiced",
    ///   when nil. Does nothing to an object outside a context.
    public func setSingleLine(amount: Decimal, description: String? = nil) {
        replaceLines(with: [LineFields(description: description ?? InvoicesModel.migratedDescription(notes: notes),
                                       unitPrice: amount)])
    }

    /// The issue date as a day.
    public var issueDay: CalendarDay {
        get { CalendarDay(issueDate) }
        set { issueDate = newValue.date }
    }

    /// The due date as a day.
    public var dueDay: CalendarDay {
        get { CalendarDay(dueDate) }
        set { dueDate = newValue.date }
    }

    /// Whether the invoice is sent, unpaid and its due date has passed on `today`.
    /// Derived, never stored: an invoice becomes overdue without being saved.
    public func isOverdue(on today: CalendarDay = .today) -> Bool {
        Self.isOverdue(status: status, dueDay: dueDay, today: today)
    }

    /// The rule itself, for values read out of a context: sent, and due before `today`.
    public static func isOverdue(status: InvoiceStatus, dueDay: CalendarDay, today: CalendarDay) -> Bool {
        status == .sent && dueDay < today
    }

    /// Why `amount` cannot be an amount in `currency`, if it has more decimals than the
    /// currency's minor units (lines round to them; a one-amount import must not be rounded).
    static func precisionMessage(of amount: Decimal, in currency: String) -> String? {
        Currency.named(currency)?.minorUnits.flatMap { precisionMessage(of: amount, minorUnits: $0, code: currency) }
    }

    private static func precisionMessage(of amount: Decimal, minorUnits: Int, code: String) -> String? {
        amount.decimalPlaces > minorUnits ? "Amount has more decimal places than \(code) allows (\(minorUnits))." : nil
    }

    public override func validate() -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        if let known = Currency.named(currency) {
            if let minorUnits = known.minorUnits {
                if let message = Self.precisionMessage(of: amount, minorUnits: minorUnits, code: currency) {
                    failures.append(ValidationFailure(property: "amount", message: message))
                }
            } else {
                failures.append(ValidationFailure(
                    property: "currency",
                    message: "\(currency) (\(known.name)) has no minor unit in ISO 4217 and cannot be used for invoices."))
            }
        } else if !currency.trimmingCharacters(in: .whitespaces).isEmpty {
            failures.append(ValidationFailure(
                property: "currency",
                message: "Currency \(EchoedInput.quoted(currency)) is not an ISO 4217 code; use a code such as EUR, USD or JPY."))
        }
        if paidAmount > 0 && amount < paidAmount {
            failures.append(ValidationFailure(
                property: "amount",
                message: "Amount cannot be less than the payments already received "
                    + "(\(Money(amount: paidAmount, currency: currency).formatted))."))
        }
        // An invoice without lines (made by code that sets the amount alone) keeps its amount.
        if lines.contains(where: { !$0.isDeleted }), case let sums = lineTotals, amount != sums.net + sums.tax {
            failures.append(ValidationFailure(
                property: "amount",
                message: "Amount \(amount) is not the total of the lines (\(sums.net + sums.tax)): call settleLines() after changing lines."))
        }
        if identifier == nil, status != .draft {
            failures.append(ValidationFailure(
                property: "identifier", message: "A \(status.label.lowercased()) invoice needs a number: it is given when the invoice leaves draft."))
        }
        if dueDate < issueDate {
            failures.append(ValidationFailure(
                property: "dueDate", message: "Due date must not be before the issue date."))
        }
        return failures
    }
}
