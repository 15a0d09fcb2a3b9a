import Foundation
import ObjectGraph

/// Version 2 of the catalog: one lightweight stage from version 1 makes every kind of
/// change a lightweight stage can make.
///
/// - Entities: `Supplier` renamed `Vendor`, `Tag` renamed `Label`, `Warehouse` added,
///   `AuditEntry` removed.
/// - Attributes: `Product.title` renamed `name` (and made unique), `Supplier.phone` removed,
///   `discontinued` (required, default false) and `notes` (optional) added; `sku` made
///   required (nils become "UNKNOWN"), `barcode` made optional; `stock` Int → Int64,
///   `price` Int → Decimal, `weight` Double → Decimal; `summary`'s length limit raised from
///   40 to 200, `code`'s lowered from 20 to 8.
/// - Relationships: `supplier` renamed `vendor` (its inverse `products` renamed `items`),
///   the many-to-many `tags` renamed `labels` (so its join table is renamed and its columns
///   swap), `warehouse` added; `featuredTag` (a column), `favoriteTags` (a join table) and
///   `auditEntries` (with its entity) removed.
enum CatalogV2 {
    final class Vendor: ManagedObject {
        @Attribute(.required, .preservedInHistoryOnDeletion) var name: String
        @Relationship(inverse: \Product.vendor) var items: Set<Product>
    }

    final class Product: ManagedObject {
        @Attribute(.required, .unique, .preservedInHistoryOnDeletion) var name: String
        @Attribute var stock: Int64 = 0
        @Attribute var price: Decimal = 0
        @Attribute var weight: Decimal = 0
        @Attribute var sku: String = "UNKNOWN"
        @Attribute var barcode: String?
        @Attribute(.maxLength(200)) var summary: String = ""
        @Attribute(.maxLength(8)) var code: String = ""
        @Attribute var discontinued: Bool = false
        @Attribute var notes: String?
        @Relationship var vendor: Vendor?
        @Relationship(inverse: \Label.products) var labels: Set<Label>
        @Relationship var warehouse: Warehouse?
    }

    final class Label: ManagedObject {
        @Attribute var label: String
        @Relationship var products: Set<Product>
    }

    final class Warehouse: ManagedObject {
        @Attribute var city: String
        @Relationship(inverse: \Product.warehouse) var products: Set<Product>
    }

    static let model = CatalogV1.makeModel([Vendor.self, Product.self, Label.self, Warehouse.self], version: 2)

    static func plan() throws -> MigrationPlan {
        try MigrationPlan(models: [CatalogV1.model, model], stages: [
            .lightweight(from: 1, to: 2, renaming: [
                .entity(CatalogV1.Supplier.self, to: Vendor.self),
                .entity(CatalogV1.Tag.self, to: Label.self),
                .property(\CatalogV1.Product.title, to: \Product.name),
                .property(\CatalogV1.Product.supplier, to: \Product.vendor),
                .property(\CatalogV1.Product.tags, to: \Product.labels),
                .property(\CatalogV1.Supplier.products, to: \Vendor.items),
            ]),
        ])
    }
}
