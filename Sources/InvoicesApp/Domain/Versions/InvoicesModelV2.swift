import Foundation
import ObjectGraph

/// Version 2 of the dashboard's model, as it shipped: invoices with line items, each invoice
/// carrying a hand-typed, required number. Kept only so that ``InvoicesModel/plan`` can read
/// files written by it; its declarations must stay exactly as they were (the file's recorded
/// model hash is checked against them), so nothing here is edited, ever.
public enum InvoicesModelV2 {
    public final class Client: ManagedObject {
        override public class var recordsValuesInHistory: Bool { true }
        @Attribute(.required, .singleLine, .maxLength(200), .indexed) public var name: String
        @Attribute(.unique, .singleLine, .maxLength(254)) public var email: String?
        @Attribute(.singleLine, .maxLength(40)) public var number: String?
        @Attribute(.singleLine, .maxLength(200)) public var street: String?
        @Attribute(.singleLine, .maxLength(20)) public var zip: String?
        @Attribute(.singleLine, .maxLength(100)) public var city: String?
        @Attribute(.singleLine, .maxLength(100)) public var country: String?
        @Attribute public var createdAt: Date = Date()
        @Relationship(inverse: \Invoice.client, deleteRule: .cascade) public var invoices: Set<Invoice>
    }

    public final class Invoice: ManagedObject {
        override public class var recordsValuesInHistory: Bool { true }
        @Attribute(.required, .unique, .singleLine, .maxLength(64)) public var identifier: String
        @Attribute(.minimum(0), .maximum(Money.largestAmount)) public var amount: Decimal = 0
        @Attribute(.required, .singleLine) public var currency: String = "EUR"
        @Attribute(.multiLine, .maxLength(2000)) public var notes: String?
        @Attribute public var status: InvoiceStatus = .draft
        @Attribute(.indexed) public var issueDate: Date = CalendarDay.today.date
        @Attribute public var dueDate: Date = CalendarDay.today.adding(days: 30).date
        @Relationship(isRequired: true) public var client: Client?
        @Attribute(.minimum(0)) public var paidAmount: Decimal = 0
        @Relationship(inverse: \Payment.invoice, deleteRule: .cascade) public var payments: Set<Payment>
        @Relationship(inverse: \LineItem.invoice, deleteRule: .cascade) public var lines: Set<LineItem>
        public override class var indexes: [[AnyKeyPath]] { [[\Invoice.status, \Invoice.issueDate]] }
    }

    public final class LineItem: ManagedObject {
        override public class var recordsValuesInHistory: Bool { true }
        @Attribute(.required, .singleLine, .maxLength(200)) public var itemDescription: String
        @Attribute(.minimum(0), .maximum(999_999_999 as Decimal)) public var quantity: Decimal = 1
        @Attribute(.minimum(0), .maximum(Money.largestAmount)) public var unitPrice: Decimal = 0
        @Attribute(.minimum(0), .maximum(100)) public var taxRate: Decimal = 0
        @Attribute(.minimum(0)) public var position: Int = 0
        @Relationship(isRequired: true) public var invoice: Invoice?
    }

    public final class Payment: ManagedObject {
        override public class var recordsValuesInHistory: Bool { true }
        @Attribute public var date: Date = CalendarDay.today.date
        @Attribute(.minimum(0), .maximum(Money.largestAmount)) public var amount: Decimal = 0
        @Attribute(.required, .singleLine, .maxLength(40)) public var method: String = "Bank transfer"
        @Attribute(.multiLine, .maxLength(500)) public var note: String?
        @Relationship(isRequired: true) public var invoice: Invoice?
    }

    /// The model, version 2.
    /// - Throws: `ModelError` only if a declaration is inconsistent (a programming error).
    public static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [Client.self, Invoice.self, LineItem.self, Payment.self], version: 2)
    }
}
