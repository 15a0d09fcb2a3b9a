import Foundation
import ObjectGraph
import Testing

/// Real files written by version 1 of the catalog fixture.
enum CatalogFiles {
    struct Product: Sendable {
        var title: String
        var stock = 0
        var price = 0
        var weight = 0.0
        var sku: String?
        var barcode = ""
        var summary = ""
        var code = ""
        var tags: [String] = []
    }

    static let hammer = Product(title: "Hammer", stock: 12, price: 1999, weight: 0.75, sku: nil, barcode: "0123",
                                summary: "A good hammer", code: "HAM-1", tags: ["tools", "sale"])
    static let saw = Product(title: "Saw", stock: 3, price: 2500, weight: 1.2, sku: "SAW-9", code: "SAW", tags: ["tools"])

    /// A closed version 1 file: a supplier with `products`, their tags, and an audit entry.
    static func version1(_ products: [Product] = [hammer, saw], recordsHistory: Bool = false) async throws -> URL {
        let url = TestStack.fileURL()
        let coordinator = PersistentStoreCoordinator(model: CatalogV1.model)
        try coordinator.addPersistentStore(.sqlite(at: url, recordsHistory: recordsHistory))
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "v1 app")
        try await context.perform {
            let supplier = CatalogV1.Supplier(context: context)
            supplier.name = "Acme Tools"
            supplier.phone = "555 0100"
            var tags: [String: CatalogV1.Tag] = [:]
            for values in products {
                let product = CatalogV1.Product(context: context)
                (product.title, product.stock, product.price, product.weight) = (values.title, values.stock, values.price, values.weight)
                (product.sku, product.barcode, product.summary, product.code) = (values.sku, values.barcode, values.summary, values.code)
                product.supplier = supplier
                for label in values.tags {
                    let tag = tags[label] ?? CatalogV1.Tag(context: context)
                    tag.label = label
                    tags[label] = tag
                    product.tags.insert(tag)
                }
            }
            let entry = CatalogV1.AuditEntry(context: context)
            entry.text = "catalog created"
            entry.product = products.isEmpty ? nil : try context.fetch(FetchRequest<CatalogV1.Product>()).first
            supplier.favoriteTags = Set(tags.values)
            for (label, tag) in tags where label == "sale" { tag.featuredIn = supplier.products }
            try context.save()
        }
        return url
    }

    /// Opens `url` with version 2 and its plan.
    static func migrate(_ url: URL, recordsHistory: Bool = false) throws -> PersistentStoreCoordinator {
        try InvoiceFiles.open(url, with: CatalogV2.model, plan: try CatalogV2.plan(), recordsHistory: recordsHistory)
    }

    /// The primary key of the version 1 product titled `title`.
    static func primaryKey(of title: String, at url: URL) async throws -> Int64 {
        let coordinator = try InvoiceFiles.open(url, with: CatalogV1.model)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        return try await context.perform {
            let products = try context.fetch(FetchRequest<CatalogV1.Product>(sortBy: [SortDescriptor(\.title)]))
            return try #require(products.last { $0.title == title }?.objectID.primaryKey)
        }
    }

    /// Runs `body` in a context of the migrated version 2 store.
    static func read<T: Sendable>(_ coordinator: PersistentStoreCoordinator,
                                  _ body: @escaping @Sendable (ManagedObjectContext) throws -> T) async throws -> T {
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        return try await context.perform { try body(context) }
    }

    static func product(_ name: String, in context: ManagedObjectContext) throws -> CatalogV2.Product {
        try #require(try context.fetch(FetchRequest<CatalogV2.Product>(predicate: #Predicate { $0.name == name })).first)
    }
}
