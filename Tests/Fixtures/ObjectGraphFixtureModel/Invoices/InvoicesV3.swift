import Foundation
import ObjectGraph

/// Version 3, by a custom stage from 2: an invoice's amount becomes its first line item
/// (description, quantity, unit price), and the `amount` attribute is removed: the total
/// is derived from the lines. A unit price is never negative.
public enum InvoicesV3 {
    public final class Client: ManagedObject {
        @Attribute(.required, .maxLength(120)) public var name: String
        @Attribute(.unique) public var email: String?
        @Attribute public var city: String?
        @Relationship(inverse: \Invoice.client, deleteRule: .cascade) public var invoices: Set<Invoice>
    }

    public final class Invoice: ManagedObject {
        @Attribute(.required, .unique, .singleLine, .maxLength(64)) public var identifier: String
        @Attribute(.required, .singleLine) public var currency: String = "EUR"
        @Attribute(.multiLine, .maxLength(2000)) public var notes: String?
        @Attribute(.indexed) public var status: FixtureInvoiceStatus = .draft
        @Attribute(.indexed) public var issueDate: Date = Date(timeIntervalSince1970: 1_735_689_600)
        @Attribute public var dueDate: Date = Date(timeIntervalSince1970: 1_738_368_000)
        @Relationship(isRequired: true) public var client: Client?
        @Relationship(inverse: \LineItem.invoice, deleteRule: .cascade) public var lineItems: [LineItem]

        /// The sum of the lines, exact.
        public var total: Decimal { lineItems.reduce(0) { $0 + $1.quantity * $1.unitPrice } }
    }

    public final class LineItem: ManagedObject {
        @Attribute(.required, .singleLine, .maxLength(200)) public var itemDescription: String
        @Attribute(.minimum(0)) public var quantity: Decimal = 1
        @Attribute(.minimum(0)) public var unitPrice: Decimal = 0
        @Relationship(isRequired: true) public var invoice: Invoice?
    }

    public static let model = InvoicesFixture.model([Client.self, Invoice.self, LineItem.self], version: 3)
}
