import Foundation
import ObjectGraph
import Testing

/// Each kind of lightweight change, on a real file written by version 1 of the catalog
/// fixture and opened by version 2 (``CatalogV2`` lists the changes).
@Suite struct LightweightMigrationTests {
    @Test func aRenamedEntityAndItsRenamedRelationshipsKeepTheirRows() async throws {
        let url = try await CatalogFiles.version1()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try CatalogFiles.migrate(url)
        let (vendors, items, hammerVendor) = try await CatalogFiles.read(coordinator) { context in
            let vendors = try context.fetch(FetchRequest<CatalogV2.Vendor>())
            return (vendors.map(\.name), Set(vendors.first?.items.map(\.name) ?? []),
                    try CatalogFiles.product("Hammer", in: context).vendor?.name)
        }
        #expect(vendors == ["Acme Tools"])
        #expect(items == ["Hammer", "Saw"])
        #expect(hammerVendor == "Acme Tools")
    }

    @Test func aRenamedAttributeKeepsItsValues() async throws {
        let url = try await CatalogFiles.version1()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try CatalogFiles.migrate(url)
        let names = try await CatalogFiles.read(coordinator) { context in
            try context.fetch(FetchRequest<CatalogV2.Product>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        }
        #expect(names == ["Hammer", "Saw"])
    }

    @Test func removedAttributesAndEntitiesLeaveTheFile() async throws {
        let url = try await CatalogFiles.version1()
        defer { StoreFileState.cleanUp(url) }
        _ = try CatalogFiles.migrate(url)
        #expect(try SQLiteFile.columns(of: "Vendor", at: url) == ["_pk", "_version", "name"])
        #expect(try SQLiteFile.tables(at: url) == [
            "Label", "Product", "Vendor", "Warehouse", "_join_Label.products_Product.labels", "_og_metadata", "_og_sequence",
        ])
        #expect(try SQLiteFile.strings("SELECT entity FROM _og_sequence ORDER BY entity", at: url)
                == ["Label", "Product", "Vendor", "Warehouse"])
    }

    @Test func removedRelationshipsLeaveTheirColumnsAndJoinTables() async throws {
        // Given a version 1 file where products have a featured tag and the supplier favourite tags
        let url = try await CatalogFiles.version1()
        defer { StoreFileState.cleanUp(url) }
        #expect(try SQLiteFile.strings("SELECT COUNT(*) FROM \"_join_Supplier.favoriteTags_Tag.favoredBy\"", at: url) == ["2"])
        #expect(try SQLiteFile.strings("SELECT COUNT(*) FROM Product WHERE featuredTag IS NOT NULL", at: url) == ["2"])

        // When version 2 (without them) opens it
        _ = try CatalogFiles.migrate(url)

        // Then the column and the join table are gone, the other relationships' storage stays
        #expect(try SQLiteFile.columns(of: "Product", at: url) == [
            "_pk", "_version", "name", "stock", "price", "weight", "sku", "barcode", "summary", "code",
            "discontinued", "notes", "vendor", "warehouse",
        ])
        #expect(!(try SQLiteFile.tables(at: url)).contains { $0.contains("favoriteTags") })
    }

    @Test func addedAttributesHoldTheirDeclaredDefaults() async throws {
        let url = try await CatalogFiles.version1()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try CatalogFiles.migrate(url)
        let values = try await CatalogFiles.read(coordinator) { context in
            try context.fetch(FetchRequest<CatalogV2.Product>()).map { ($0.discontinued, $0.notes) }
        }
        #expect(values.count == 2)
        #expect(values.allSatisfy { $0.0 == false && $0.1 == nil })
        #expect(try SQLiteFile.strings("SELECT COUNT(*) FROM Product WHERE discontinued IS NULL", at: url) == ["0"])
    }

    @Test func anAttributeMadeRequiredTakesTheDefaultWhereItWasNil() async throws {
        let url = try await CatalogFiles.version1()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try CatalogFiles.migrate(url)
        let skus = try await CatalogFiles.read(coordinator) { context in
            try context.fetch(FetchRequest<CatalogV2.Product>(sortBy: [SortDescriptor(\.name)])).map(\.sku)
        }
        #expect(skus == ["UNKNOWN", "SAW-9"])
    }

    @Test func anAttributeMadeOptionalKeepsItsValuesAndTakesNil() async throws {
        let url = try await CatalogFiles.version1()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try CatalogFiles.migrate(url)
        let barcodes = try await CatalogFiles.read(coordinator) { context in
            let products = try context.fetch(FetchRequest<CatalogV2.Product>(sortBy: [SortDescriptor(\.name)]))
            let before = products.map(\.barcode)
            products[0].barcode = nil
            try context.save()
            return before
        }
        #expect(barcodes == ["0123", ""])
        let reopened = try InvoiceFiles.open(url, with: CatalogV2.model)
        let hammer = try await CatalogFiles.read(reopened) { try CatalogFiles.product("Hammer", in: $0).barcode }
        #expect(hammer == nil)
    }

    @Test func numericTypesConvertExactly() async throws {
        let url = try await CatalogFiles.version1()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try CatalogFiles.migrate(url)
        let values = try await CatalogFiles.read(coordinator) { context in
            try context.fetch(FetchRequest<CatalogV2.Product>(sortBy: [SortDescriptor(\.name)])).map { ($0.stock, $0.price, $0.weight) }
        }
        #expect(values.map(\.0) == [12, 3])
        #expect(values.map(\.1) == [1999, 2500])
        #expect(values.map(\.2) == [Decimal(string: "0.75")!, Decimal(string: "1.2")!])
        // Stored as Decimal's exact text, not as a binary double
        #expect(try SQLiteFile.strings("SELECT typeof(weight) || ':' || weight FROM Product ORDER BY name", at: url)
                == ["text:0.75", "text:1.2"])
    }

    @Test func aRenamedManyToManyRelationshipKeepsItsLinksFromBothSides() async throws {
        let url = try await CatalogFiles.version1()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try CatalogFiles.migrate(url)
        let (hammerLabels, toolProducts) = try await CatalogFiles.read(coordinator) { context in
            let tools = try #require(try context.fetch(FetchRequest<CatalogV2.Label>(predicate: #Predicate { $0.label == "tools" })).first)
            return (Set(try CatalogFiles.product("Hammer", in: context).labels.map(\.label)), Set(tools.products.map(\.name)))
        }
        #expect(hammerLabels == ["tools", "sale"])
        #expect(toolProducts == ["Hammer", "Saw"])
    }

    @Test func anAddedEntityAndRelationshipAreUsable() async throws {
        let url = try await CatalogFiles.version1()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try CatalogFiles.migrate(url)
        try await CatalogFiles.read(coordinator) { context in
            let warehouse = CatalogV2.Warehouse(context: context)
            warehouse.city = "Lyon"
            try CatalogFiles.product("Saw", in: context).warehouse = warehouse
            try context.save()
        }
        let reopened = try InvoiceFiles.open(url, with: CatalogV2.model)
        let stored = try await CatalogFiles.read(reopened) { context in
            try context.fetch(FetchRequest<CatalogV2.Warehouse>()).map { ($0.city, $0.products.map(\.name)) }
        }
        #expect(stored.count == 1)
        #expect(stored.first?.0 == "Lyon")
        #expect(stored.first?.1 == ["Saw"])
    }

    @Test func aRenamedEntityKeepsItsKeySequence() async throws {
        let url = try await CatalogFiles.version1()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try CatalogFiles.migrate(url)
        let key = try await CatalogFiles.read(coordinator) { context in
            let vendor = CatalogV2.Vendor(context: context)
            vendor.name = "Bolt & Co"
            try context.save()
            return vendor.objectID.primaryKey
        }
        #expect(key == 2)
    }

    @Test func aRaisedLengthLimitTakesLongerText() async throws {
        let url = try await CatalogFiles.version1()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try CatalogFiles.migrate(url)
        let long = String(repeating: "sturdy ", count: 25)
        try await CatalogFiles.read(coordinator) { context in
            try CatalogFiles.product("Hammer", in: context).summary = long
            try context.save()
        }
        let summary = try await CatalogFiles.read(coordinator) { context in
            context.reset()
            return try CatalogFiles.product("Hammer", in: context).summary
        }
        #expect(summary == long)
    }
}
