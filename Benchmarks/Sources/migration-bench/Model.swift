import Foundation
import ObjectGraph

/// The invoices model in three versions, as the tests' fixture has it: version 2 renames
/// `number` to `identifier`, drops `purchaseOrder` and adds `dueDate` and `Client.city`;
/// version 3 turns each amount into a line item and drops `amount`.
enum V1 {
    final class Client: ManagedObject {
        @Attribute(.required) var name: String
        @Relationship(inverse: \Invoice.client, deleteRule: .cascade) var invoices: Set<Invoice>
    }
    final class Invoice: ManagedObject {
        @Attribute(.required, .unique) var number: String
        @Attribute var amount: Decimal = 0
        @Attribute var currency: String = "EUR"
        @Attribute var notes: String?
        @Attribute(.indexed) var issueDate: Date = Date(timeIntervalSince1970: 1_735_689_600)
        @Attribute var purchaseOrder: String?
        @Relationship(isRequired: true) var client: Client?
    }
    static let model = makeModel([Client.self, Invoice.self], version: 1)
}

enum V2 {
    final class Client: ManagedObject {
        @Attribute(.required) var name: String
        @Attribute var city: String?
        @Relationship(inverse: \Invoice.client, deleteRule: .cascade) var invoices: Set<Invoice>
    }
    final class Invoice: ManagedObject {
        @Attribute(.required, .unique) var identifier: String
        @Attribute var amount: Decimal = 0
        @Attribute var currency: String = "EUR"
        @Attribute var notes: String?
        @Attribute(.indexed) var issueDate: Date = Date(timeIntervalSince1970: 1_735_689_600)
        @Attribute var dueDate: Date = Date(timeIntervalSince1970: 1_738_368_000)
        @Relationship(isRequired: true) var client: Client?
    }
    static let model = makeModel([Client.self, Invoice.self], version: 2)
}

enum V3 {
    final class Client: ManagedObject {
        @Attribute(.required) var name: String
        @Attribute var city: String?
        @Relationship(inverse: \Invoice.client, deleteRule: .cascade) var invoices: Set<Invoice>
    }
    final class Invoice: ManagedObject {
        @Attribute(.required, .unique) var identifier: String
        @Attribute var currency: String = "EUR"
        @Attribute var notes: String?
        @Attribute(.indexed) var issueDate: Date = Date(timeIntervalSince1970: 1_735_689_600)
        @Attribute var dueDate: Date = Date(timeIntervalSince1970: 1_738_368_000)
        @Relationship(isRequired: true) var client: Client?
        @Relationship(inverse: \LineItem.invoice, deleteRule: .cascade) var lineItems: [LineItem]
    }
    final class LineItem: ManagedObject {
        @Attribute(.required) var itemDescription: String
        @Attribute(.minimum(0)) var quantity: Decimal = 1
        @Attribute(.minimum(0)) var unitPrice: Decimal = 0
        @Relationship(isRequired: true) var invoice: Invoice?
    }
    static let model = makeModel([Client.self, Invoice.self, LineItem.self], version: 3)

    static func plan(batchSize: Int) throws -> MigrationPlan {
        try MigrationPlan(models: [V1.model, V2.model, model], stages: [
            .lightweight(from: 1, to: 2, renaming: [.property(\V1.Invoice.number, to: \V2.Invoice.identifier)]),
            .custom(from: 2, to: 3, name: "amount to line items") { migration in
                try migration.forEachRow(of: V2.Invoice.self, batchSize: batchSize) { invoice, context in
                    let item = LineItem(context: context)
                    item.itemDescription = "Invoice total"
                    item.quantity = 1
                    item.unitPrice = try invoice[\.amount]
                    item.invoice = try context.object(with: invoice.objectID) as? Invoice
                }
            },
        ])
    }
}

func makeModel(_ entities: [ManagedObject.Type], version: Int) -> ManagedObjectModel {
    do { return try ManagedObjectModel(entities: entities, version: version) } catch {
        fatalError("migration-bench model \(version): \(error)")
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
