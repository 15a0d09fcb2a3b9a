import Foundation
import ObjectGraph

/// An invoice to a client, in one currency.
///
/// Rules checked at save: an identifier (unique), an amount of at least 0 with no more
/// decimals than its currency's minor units, an ISO 4217 currency from ``Currency/all``
/// that has minor units, a due date not before the issue date, and a client. Identifier and
/// currency are one line; notes may span lines; none holds other control characters.
///
/// Dates are days: midnight UTC of the day (see ``CalendarDay``).
public final class Invoice: ManagedObject {
    /// Every change is kept with its old and new values: the object's history page reads them.
    override public class var recordsValuesInHistory: Bool { true }

    /// The invoice number printed on it ("INV-2025-00042"); unique.
    @Attribute(.required, .unique, .singleLine, .maxLength(64)) public var identifier: String
    /// At most 999,999,999,999,999.9999, so totals stay exact (see ``Money/maximumIntegerDigits``).
    @Attribute(.minimum(0), .maximum(Money.largestAmount)) public var amount: Decimal = 0
    /// An ISO 4217 code, upper case.
    @Attribute(.required, .singleLine) public var currency: String = "EUR"
    @Attribute(.multiLine, .maxLength(2000)) public var notes: String?
    /// Indexed with the issue date (see ``indexes``).
    @Attribute public var status: InvoiceStatus = .draft
    /// Indexed: the invoice list's default order (newest first) reads the index backwards
    /// and stops after a page.
    @Attribute(.indexed) public var issueDate: Date = CalendarDay.today.date
    @Attribute public var dueDate: Date = CalendarDay.today.adding(days: 30).date
    @Relationship(isRequired: true) public var client: Client?
    /// What the payments add up to, kept with the invoice (``settlePayments()``) so lists and
    /// totals read it without loading every invoice's payments.
    @Attribute(.minimum(0)) public var paidAmount: Decimal = 0
    /// Deleting an invoice deletes its payments.
    @Relationship(inverse: \Payment.invoice, deleteRule: .cascade) public var payments: Set<Payment>

    /// `(status, issueDate)`: the list filtered by a status (`/invoices?status=sent`) counts
    /// its invoices from the index alone and reads its page in issue-date order, instead of
    /// sorting every invoice of that status first.
    public override class var indexes: [[AnyKeyPath]] { [[\Invoice.status, \Invoice.issueDate]] }

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

    public override func validate() -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        if let known = Currency.named(currency) {
            if let minorUnits = known.minorUnits {
                if amount.decimalPlaces > minorUnits {
                    failures.append(ValidationFailure(
                        property: "amount",
                        message: "Amount has more decimal places than \(currency) allows (\(minorUnits))."))
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
        if dueDate < issueDate {
            failures.append(ValidationFailure(
                property: "dueDate", message: "Due date must not be before the issue date."))
        }
        return failures
    }
}
