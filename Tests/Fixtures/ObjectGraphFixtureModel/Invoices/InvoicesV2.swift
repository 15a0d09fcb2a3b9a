import Foundation
import ObjectGraph

/// Version 2, by a lightweight stage from 1: `number` is renamed `identifier` (as the
/// dashboard calls it), `purchaseOrder` is removed, a required `dueDate` is added (existing
/// invoices get the declared default) and clients get an optional `city`.
public enum InvoicesV2 {
    public final class Client: ManagedObject {
        @Attribute(.required, .maxLength(120)) public var name: String
        @Attribute(.unique) public var email: String?
        @Attribute public var city: String?
        @Relationship(inverse: \Invoice.client, deleteRule: .cascade) public var invoices: Set<Invoice>
    }

    public final class Invoice: ManagedObject {
        @Attribute(.required, .unique, .singleLine, .maxLength(64)) public var identifier: String
        @Attribute public var amount: Decimal = 0
        @Attribute(.required, .singleLine) public var currency: String = "EUR"
        @Attribute(.multiLine, .maxLength(2000)) public var notes: String?
        @Attribute(.indexed) public var status: FixtureInvoiceStatus = .draft
        @Attribute(.indexed) public var issueDate: Date = Date(timeIntervalSince1970: 1_735_689_600)
        @Attribute public var dueDate: Date = Date(timeIntervalSince1970: 1_738_368_000)
        @Relationship(isRequired: true) public var client: Client?
    }

    public static let model = InvoicesFixture.model([Client.self, Invoice.self], version: 2)
}
