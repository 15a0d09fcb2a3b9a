import Foundation
import ObjectGraph

/// Version 1 of a product catalog, the old side of every kind of lightweight change (see
/// ``CatalogV2``).
enum CatalogV1 {
    final class Supplier: ManagedObject {
        @Attribute(.required, .preservedInHistoryOnDeletion) var name: String
        @Attribute var phone: String?
        @Relationship(inverse: \Product.supplier) var products: Set<Product>
        /// Removed in version 2, with its join table.
        @Relationship(inverse: \Tag.favoredBy) var favoriteTags: Set<Tag>
    }

    final class Product: ManagedObject {
        @Attribute(.required, .preservedInHistoryOnDeletion) var title: String
        @Attribute var stock: Int = 0
        @Attribute var price: Int = 0
        @Attribute var weight: Double = 0
        @Attribute var sku: String?
        @Attribute var barcode: String = ""
        @Attribute(.maxLength(40)) var summary: String = ""
        @Attribute(.maxLength(20)) var code: String = ""
        @Relationship var supplier: Supplier?
        @Relationship(inverse: \Tag.products) var tags: Set<Tag>
        /// Removed in version 2, with its column.
        @Relationship var featuredTag: Tag?
        /// Removed in version 2 with the entity it points to.
        @Relationship(inverse: \AuditEntry.product) var auditEntries: Set<AuditEntry>
    }

    final class Tag: ManagedObject {
        @Attribute var label: String
        @Relationship var products: Set<Product>
        @Relationship(inverse: \Product.featuredTag) var featuredIn: Set<Product>
        @Relationship var favoredBy: Set<Supplier>
    }

    final class AuditEntry: ManagedObject {
        @Attribute var text: String
        @Relationship var product: Product?
    }

    static let model = makeModel([Supplier.self, Product.self, Tag.self, AuditEntry.self], version: 1)

    static func makeModel(_ entities: [ManagedObject.Type], version: Int) -> ManagedObjectModel {
        do {
            return try ManagedObjectModel(entities: entities, version: version)
        } catch {
            fatalError("catalog fixture model \(version): \(error)")
        }
    }
}
