import Foundation
import ObjectGraph

/// Two versions of a small model whose stage 1 → 2 only adds, so every store runs it
/// (``AdditiveMigrationTests``), and variants whose stage does more.
///
/// Version 2 adds, to existing entities: `Customer.tier` (required, default 1),
/// `Customer.note` (optional), makes `Customer.city` required (nils become "Unknown"), an index on `Customer.name`, the to-one `Customer.region` and
/// the many-to-many `Customer.tags`, a uniqueness constraint and a length limit of 8 on
/// `Order.number`; and the
/// entities `Region` and `Tag`.
enum LedgerV1 {
    final class Customer: ManagedObject {
        @Attribute var name: String
        @Attribute var city: String?
        @Relationship(inverse: \Order.customer) var orders: Set<Order>
    }

    final class Order: ManagedObject {
        @Attribute var number: String
        @Relationship var customer: Customer?
    }

    static let model = makeLedgerModel([Customer.self, Order.self], version: 1)
}

enum LedgerV2 {
    final class Customer: ManagedObject {
        @Attribute(.indexed) var name: String
        @Attribute var city: String = "Unknown"
        @Attribute var tier: Int = 1
        @Attribute var note: String?
        @Relationship(inverse: \Order.customer) var orders: Set<Order>
        @Relationship var region: Region?
        @Relationship(inverse: \Tag.customers) var tags: Set<Tag>
    }

    final class Order: ManagedObject {
        @Attribute(.unique, .maxLength(8)) var number: String
        @Relationship var customer: Customer?
    }

    final class Region: ManagedObject {
        @Attribute var name: String
        @Relationship(inverse: \Customer.region) var customers: Set<Customer>
    }

    final class Tag: ManagedObject {
        @Attribute var label: String
        @Relationship var customers: Set<Customer>
    }

    static let model = makeLedgerModel([Customer.self, Order.self, Region.self, Tag.self], version: 2)

    static func plan() throws -> MigrationPlan {
        try MigrationPlan(models: [LedgerV1.model, model], stages: [.lightweight(from: 1, to: 2)])
    }
}

/// Version 2 that renames `Customer.name` to `fullName`: a stage SQLite runs and PostgreSQL
/// refuses.
enum LedgerRenamed {
    final class Customer: ManagedObject {
        @Attribute var fullName: String
        @Attribute var city: String?
        @Relationship(inverse: \Order.customer) var orders: Set<Order>
    }

    final class Order: ManagedObject {
        @Attribute var number: String
        @Relationship var customer: Customer?
    }

    static let model = makeLedgerModel([Customer.self, Order.self], version: 2)

    static func plan() throws -> MigrationPlan {
        try MigrationPlan(models: [LedgerV1.model, model], stages: [
            .lightweight(from: 1, to: 2, renaming: [.property(\LedgerV1.Customer.name, to: \Customer.fullName)]),
        ])
    }

    /// The same models with a custom stage (which would only count the customers).
    static func customPlan() throws -> MigrationPlan {
        try MigrationPlan(models: [LedgerV1.model, LedgerV2.model], stages: [
            .custom(from: 1, to: 2, name: "count") { _ in },
        ])
    }
}

private func makeLedgerModel(_ types: [ManagedObject.Type], version: Int) -> ManagedObjectModel {
    do {
        return try ManagedObjectModel(entities: types, version: version)
    } catch {
        fatalError("ledger test model: \(error)")
    }
}
