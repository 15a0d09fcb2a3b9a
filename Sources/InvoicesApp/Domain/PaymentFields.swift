import Foundation

/// A payment's own values, as imported: written to a ``Payment`` by
/// ``Invoice/addPayments(_:)``.
public struct PaymentFields: Sendable, Hashable {
    public var date: CalendarDay
    public var amount: Decimal
    public var method: String
    public var note: String?

    public init(date: CalendarDay, amount: Decimal, method: String = Payment.defaultMethod, note: String? = nil) {
        self.date = date
        self.amount = amount
        self.method = method
        self.note = note
    }
}

extension Invoice {
    /// Adds a payment for each of `payments`, then brings the paid amount and the status in
    /// step. Does nothing to an object outside a context.
    public func addPayments(_ payments: [PaymentFields]) {
        guard let context = managedObjectContext else { return }
        for fields in payments {
            let payment = Payment(context: context)
            payment.day = fields.date
            payment.amount = fields.amount
            payment.method = fields.method
            payment.note = fields.note
            payment.invoice = self
        }
        settlePayments()
    }
}
