import Foundation
import ObjectGraph

/// Version 1 of a product catalog, the old side of every kind of lightweight change (see
/// ``CatalogV2``).
enum CatalogV1 {
    final class Supplier: ManagedObject {
        @Attribute(.required, .preservedInHistoryOnDeletion) var name: String
        @Attribute var phone: String?
        @Relationship(inverse: \Product.supplier) var products: Set<Product>
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
    }

    final class Tag: ManagedObject {
        @Attribute var label: String
        @Relationship var products: Set<Product>
    }

    final class AuditEntry: ManagedObject {
        @Attribute var text: String
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
