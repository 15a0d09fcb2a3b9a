import Foundation
import ObjectGraph

/// Money received against an invoice, in the invoice's currency.
///
/// Rules checked at save: more than zero, no more decimals than the currency allows, and the
/// invoice's payments together never more than its total (an overpayment is refused, with the
/// most this payment may be).
public final class Payment: ManagedObject {
    /// Every change is kept with its old and new values: the object's history page reads them.
    override public class var recordsValuesInHistory: Bool { true }

    /// The day the money arrived: midnight UTC (see ``CalendarDay``).
    @Attribute public var date: Date = CalendarDay.today.date
    @Attribute(.minimum(0), .maximum(Money.largestAmount)) public var amount: Decimal = 0
    /// How it was paid ("Bank transfer", "Card", "Cash").
    @Attribute(.required, .singleLine, .maxLength(40)) public var method: String = "Bank transfer"
    @Attribute(.multiLine, .maxLength(500)) public var note: String?
    @Relationship(isRequired: true) public var invoice: Invoice?

    /// The method a payment has unless told otherwise.
    public static let defaultMethod = "Bank transfer"

    /// The amount in the invoice's currency.
    public var money: Money { Money(amount: amount, currency: invoice?.currency ?? "") }

    /// The payment's day.
    public var day: CalendarDay {
        get { CalendarDay(date) }
        set { date = newValue.date }
    }

    public override func validate() -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        if amount <= 0 {
            failures.append(ValidationFailure(property: "amount", message: "A payment must be more than zero."))
        }
        guard let invoice else { return failures }
        if let minorUnits = Currency.named(invoice.currency)?.minorUnits, amount.decimalPlaces > minorUnits {
            failures.append(ValidationFailure(
                property: "amount", message: "Amount has more decimal places than \(invoice.currency) allows (\(minorUnits))."))
        }
        let others = invoice.payments.filter { $0 !== self && !$0.isDeleted }.reduce(Decimal(0)) { $0 + $1.amount }
        if others + amount > invoice.amount {
            let most = max(invoice.amount - others, 0)
            failures.append(ValidationFailure(
                property: "amount",
                message: "This would pay more than the invoice's total of \(invoice.money.formatted): "
                    + "the most this payment can be is \(Money(amount: most, currency: invoice.currency).formatted)."))
        }
        return failures
    }
}
