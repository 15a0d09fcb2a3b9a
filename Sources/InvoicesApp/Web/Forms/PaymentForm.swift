import Foundation
import ObjectGraph

/// The payment form's table: `/payments/new?invoice={pk}` from an invoice's page. A saved
/// payment leads back to its invoice, whose status follows the payments (``Invoice/settlePayments()``).
extension Payment: EditableEntity {
    static var formPath: String { "payments" }
    static var formNoun: String { "payment" }

    static var formFields: [FormFieldSpec<Payment>] {
        [.choice(\.invoice, label: "Invoice", placeholder: "Choose an invoice…") { context in
             let sent = InvoiceStatus.sent
             return try context.fetch(FetchRequest<Invoice>(predicate: #Predicate { $0.status == sent },
                                                            sortBy: [SortDescriptor(\.identifier)]))
         },
         .day(\.date, label: "Received on"),
         amountField,
         .text(\.method, label: "Method", hint: "Bank transfer, card, cash…"),
         .optionalText(\.note, label: "Note", input: .textarea)]
    }

    /// Typed as 1234.50, in the invoice's currency.
    private static var amountField: FormFieldSpec<Payment> {
        FormFieldSpec(\Payment.amount, label: "Amount", hint: "In the invoice's currency; a dot for decimals: 1234.50",
                      read: { payment in
                          payment.invoice.map { Money(amount: payment.amount, currency: $0.currency).plainAmount }
                              ?? "\(payment.amount)"
                      }) { text, payment, _ in
            switch FieldInput.amount(text) {
            case .success(let amount):
                if payment.amount != amount { payment.amount = amount }
                return nil
            case .failure(let error):
                return error.message
            }
        }
    }

    /// The invoice from `?invoice=`, and its balance as the amount.
    static func prepareNew(_ payment: Payment, parameters: [String: String], in context: ManagedObjectContext) {
        payment.method = Payment.defaultMethod
        if let pk = parameters["invoice"].flatMap({ Int64($0) }),
           let id = context.persistentStoreCoordinator.managedObjectID(for: Invoice.self, primaryKey: pk),
           let invoice = try? context.existingObject(with: id, as: Invoice.self) {
            payment.invoice = invoice
            payment.amount = max(invoice.balance, 0)
        }
    }

    static func inputApplied(_ payment: Payment, in context: ManagedObjectContext) {
        payment.invoice?.settlePayments()
    }

    static func pagePath(of payment: Payment) -> String? {
        payment.invoice?.objectID.primaryKey.map { "/invoices/\($0)" }
    }

    var formTitle: String { invoice.map { "\(money.formatted) for \($0.displayNumber)" } ?? money.formatted }
    var formSummary: String { money.formatted }


}
