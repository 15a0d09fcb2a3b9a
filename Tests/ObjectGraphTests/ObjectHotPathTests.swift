import Foundation
import Testing
@testable import ObjectGraph

/// The paths every object takes, kept fast by hand (ARCHITECTURE.md, "Where the time of an
/// object goes"): what each shortcut must still give.
@Suite struct ObjectHotPathTests {
    private func id(_ pk: Int64, entity: UInt32 = 1, store: UInt32 = 1) -> ObjectID {
        ObjectID(entityCode: entity, storeCode: store, value: pk)
    }

    @Test func equalIDsHashAlikeAndEveryFieldTellsIDsApart() {
        let a = id(42), same = id(42)
        #expect(a == same)
        #expect(a.hashValue == same.hashValue)
        for seed in [0, 1, -1, Int.max] { #expect(a._rawHashValue(seed: seed) == same._rawHashValue(seed: seed)) }
        // Sets and dictionaries keep IDs that differ in one field only apart.
        let variants: Set<ObjectID> = [id(42), id(43), id(42, entity: 2), id(42, store: 0), id(42, store: 2)]
        #expect(variants.count == 5)
    }

    @Test func theKeysOfOneTableSpreadOverTheHashSpace() {
        // A store's keys are consecutive: the mix must not leave them in neighbouring buckets.
        let ids = (1...100_000).map { id(Int64($0)) }
        let hashes = Set(ids.map { $0._rawHashValue(seed: 12_345) })
        #expect(hashes.count == ids.count)
        // The low bits choose the bucket: 100,000 keys over 2^17 buckets fill most of them.
        let buckets = Set(hashes.map { $0 & (1 << 17 - 1) })
        #expect(buckets.count > 60_000)
        // The seed keys the mix: another seed gives other hashes.
        #expect(ids.prefix(100).filter { $0._rawHashValue(seed: 1) == $0._rawHashValue(seed: 2) }.isEmpty)
    }

    @Test func aDictionaryOfManyIDsFindsEachOne() {
        var map: [ObjectID: Int64] = [:]
        for pk in 1...20_000 { map[id(Int64(pk), entity: UInt32(pk % 3 + 1))] = Int64(pk) }
        #expect(map.count == 20_000)
        #expect((1...20_000).allSatisfy { map[id(Int64($0), entity: UInt32($0 % 3 + 1))] == Int64($0) })
        #expect(map[id(7, entity: 1)] == nil)   // 7 was stored under entity 2
    }

    @Test func propertiesAreFoundByNameInSmallAndWideEntities() throws {
        let small = try #require(TestStack.model.entity(named: "Invoice"))
        let wide = try #require(HistoryValuesWideTests.model.entity(named: "Form"))
        #expect(wide.properties.count > 16)   // the dictionary, not the scan
        for entity in [small, wide] {
            for (index, property) in entity.properties.enumerated() {
                #expect(entity.propertyIndex(named: property.name) == index)
            }
            #expect(entity.propertyIndex(named: "noSuchProperty") == nil)
            #expect(entity.propertyIndex(named: "") == nil)
        }
    }

    @Test func dynamicAccessReadsAndWritesEveryPropertyOfAWideEntity() async throws {
        let coordinator = PersistentStoreCoordinator(model: HistoryValuesWideTests.model)
        try coordinator.addPersistentStore(.inMemory())
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let form = HistoryValuesWideTests.Form(context: context)
            for name in HistoryValuesWideTests.names { try form.setValue("v " + name, forKey: name) }
            for name in HistoryValuesWideTests.names { #expect(try form.value(forKey: name) as? String == "v " + name) }
            #expect(form.f39 == "v f39")
            #expect(throws: PropertyAccessError.self) { try form.value(forKey: "f40") }
        }
    }

    @Test func aNewObjectStartsWithItsDeclaredDefaultsAndEmptyRelationships() async throws {
        let context = ManagedObjectContext(.privateQueue, coordinator: try TestStack.inMemoryCoordinator())
        await context.perform {
            let invoice = Invoice(context: context)
            #expect(invoice.amount == 0)
            #expect(invoice.currency == "EUR")
            #expect(invoice.status == .draft)
            #expect(invoice.quantity == 1)
            #expect(invoice.notes == nil)
            #expect(invoice.client == nil)
            let client = Client(context: context)
            #expect(client.isActive)
            #expect(client.invoices.isEmpty)
            // A second object gets its own values: writing one leaves the other as declared.
            invoice.currency = "CHF"
            #expect(Invoice(context: context).currency == "EUR")
        }
    }

    @Test func objectsMadeOnManyThreadsAtOnceTakeTheirOwnPropertyIndexes() async throws {
        // Each thread's wrappers count in that thread's state; a shared count would shift them.
        let coordinator = try TestStack.inMemoryCoordinator()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<8 {
                group.addTask {
                    let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
                    try context.performAndWait {
                        let client = Client(context: context)
                        client.name = "Thread \(n)"
                        for i in 0..<500 {
                            let invoice = Invoice(context: context)
                            invoice.client = client
                            invoice.identifier = "T\(n)-\(i)"
                            invoice.quantity = i
                            guard invoice.identifier == "T\(n)-\(i)", invoice.quantity == i, invoice.currency == "EUR" else {
                                throw HotPathError.mixedUp(n, i)
                            }
                        }
                        try context.save()
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func aStringIsBlankExactlyWhenTrimmingWhitespaceWouldEmptyIt() {
        var samples = ["", " ", "\t\n\r\u{0B}\u{0C}", "\u{85}", "\u{A0}", "\u{2028}", "\u{3000}\u{2003}", "a", " a ",
                       "\u{200B}", "\u{FEFF}", "\u{1680}", "x\n", " \u{301}", "\t\u{A0}é"]
        // Every scalar of the first planes' common blocks alone: the set is Foundation's.
        for value in 0..<0x3100 { if let scalar = Unicode.Scalar(value) { samples.append(String(scalar)) } }
        for sample in samples {
            #expect(Validator.isBlank(sample) == sample.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty,
                    "\(sample.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test func lengthsCountCharactersNotBytes() throws {
        let name = try #require(TestStack.model.entity(named: "Client")?.attribute(named: "name"))   // .maxLength(120)
        let id = ObjectID(entityCode: 1, storeCode: 1, value: 1)
        func failures(_ text: String) -> [ValidationFailure.Code] {
            Validator.check(.string(text), attribute: name, objectID: id).map(\.code)
        }
        #expect(failures(String(repeating: "x", count: 120)).isEmpty)
        #expect(failures(String(repeating: "x", count: 121)) == [.stringTooLong])
        #expect(failures(String(repeating: "é", count: 120)).isEmpty)            // 240 bytes, 120 characters
        #expect(failures(String(repeating: "é", count: 121)) == [.stringTooLong])
        #expect(failures(String(repeating: "👨‍👩‍👧", count: 120)).isEmpty)       // one character each
        #expect(failures(" \u{A0}\t") == [.missingMandatoryProperty])
        #expect(failures("\u{A0}Acme").isEmpty)
    }

    private enum HotPathError: Error { case mixedUp(Int, Int) }
}
