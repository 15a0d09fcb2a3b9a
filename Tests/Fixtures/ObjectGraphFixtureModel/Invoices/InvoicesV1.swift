import Foundation
import ObjectGraph

/// The status of an invoice, in every version of the invoices fixture.
public enum FixtureInvoiceStatus: String, AttributeValue, CaseIterable, Sendable {
    case draft, sent, paid, cancelled
}

/// Version 1 of an invoicing model, close to the dashboard's: an invoice has one amount, in
/// its currency. Credit notes are invoices with a negative amount (no minimum yet).
public enum InvoicesV1 {
    public final class Client: ManagedObject {
        @Attribute(.required, .maxLength(120)) public var name: String
        @Attribute(.unique) public var email: String?
        @Relationship(inverse: \Invoice.client, deleteRule: .cascade) public var invoices: Set<Invoice>
    }

    public final class Invoice: ManagedObject {
        @Attribute(.required, .unique, .singleLine, .maxLength(64)) public var number: String
        @Attribute public var amount: Decimal = 0
        @Attribute(.required, .singleLine) public var currency: String = "EUR"
        @Attribute(.multiLine, .maxLength(2000)) public var notes: String?
        @Attribute(.indexed) public var status: FixtureInvoiceStatus = .draft
        @Attribute(.indexed) public var issueDate: Date = Date(timeIntervalSince1970: 1_735_689_600)
        /// A purchase order reference, dropped in version 2.
        @Attribute public var purchaseOrder: String?
        @Relationship(isRequired: true) public var client: Client?
    }

    public static let model = InvoicesFixture.model([Client.self, Invoice.self], version: 1)
}

/// Shared by the fixture's versions.
public enum InvoicesFixture {
    static func model(_ entities: [ManagedObject.Type], version: Int) -> ManagedObjectModel {
        do {
            return try ManagedObjectModel(entities: entities, version: version)
        } catch {
            fatalError("invoices fixture model \(version): \(error)")
        }
    }
}
