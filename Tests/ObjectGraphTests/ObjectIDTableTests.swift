import Foundation
import Testing
@testable import ObjectGraph

@Suite struct ObjectIDTableTests {
    private func id(_ pk: Int64, entity: UInt32 = 1, store: UInt32 = 1) -> ObjectID {
        ObjectID(entityCode: entity, storeCode: store, value: pk)
    }

    @Test func holdsWhatADictionaryHoldsThroughInsertsRemovalsAndGrowth() {
        var table = ObjectIDTable<Int>()
        var reference: [ObjectID: Int] = [:]
        var generator = SystemRandomNumberGenerator()
        for step in 0..<20_000 {
            // Few distinct keys, so removals leave tombstones that later inserts land on.
            let key = id(Int64.random(in: 1...3_000, using: &generator), entity: UInt32.random(in: 1...2, using: &generator),
                         store: UInt32.random(in: 0...1, using: &generator))
            if Bool.random(using: &generator) {
                table[key] = step
                reference[key] = step
            } else {
                #expect(table.removeValue(forKey: key) == reference.removeValue(forKey: key))
            }
        }
        #expect(table.count == reference.count)
        for (key, value) in reference { #expect(table[key] == value) }
        #expect(Dictionary(uniqueKeysWithValues: table.map { ($0.key, $0.value) }) == reference)
    }

    @Test func idsDifferingOnlyByEntityOrStoreAreDifferentKeys() {
        var table = ObjectIDTable<String>()
        table[id(7, entity: 1, store: 1)] = "a"
        table[id(7, entity: 2, store: 1)] = "b"
        table[id(7, entity: 1, store: 0)] = "c"
        #expect(table.count == 3)
        #expect(table[id(7, entity: 2, store: 1)] == "b")
        #expect(table[id(7, entity: 1, store: 0)] == "c")
        #expect(table[id(8, entity: 1, store: 1)] == nil)
    }

    @Test func anIndexReadsAndChangesItsEntryInPlace() throws {
        var table = ObjectIDTable<Int>()
        for pk in 1...100 { table[id(Int64(pk))] = pk }
        let index = try #require(table.index(forKey: id(42)))
        table[at: index] += 1000
        #expect(table[id(42)] == 1042)
        #expect(table.remove(at: index) == 1042)
        #expect(table[id(42)] == nil)
        #expect(table.count == 99)
        table.removeAll(keepingCapacity: true)
        #expect(table.isEmpty && table[id(1)] == nil)
    }
}
