import Foundation
import ObjectGraph

/// How a file of any version of the invoices fixture reaches version 3.
public enum InvoicesMigration {
    /// The plan: 1 → 2 lightweight, 2 → 3 custom (each amount becomes one line item).
    /// - Parameters:
    ///   - pause: seconds the custom stage waits before it starts, so a test can have two
    ///     processes migrate the same file at once.
    ///   - batchSize: invoices migrated (and saved) at a time.
    public static func plan(pausing pause: Double = 0, batchSize: Int = 1_000) throws -> MigrationPlan {
        try MigrationPlan(models: [InvoicesV1.model, InvoicesV2.model, InvoicesV3.model], stages: [
            .lightweight(from: 1, to: 2, renaming: [.property(\InvoicesV1.Invoice.number, to: \InvoicesV2.Invoice.identifier)]),
            .custom(from: 2, to: 3, name: "amount to line items") { migration in
                if pause > 0 { Thread.sleep(forTimeInterval: pause) }
                try migration.forEachRow(of: InvoicesV2.Invoice.self, batchSize: batchSize) { invoice, context in
                    let item = InvoicesV3.LineItem(context: context)
                    item.itemDescription = "Invoice total"
                    item.quantity = 1
                    item.unitPrice = try invoice[\.amount]
                    item.invoice = try context.object(with: invoice.objectID) as? InvoicesV3.Invoice
                }
            },
        ])
    }
}
