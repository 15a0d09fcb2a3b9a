import Foundation
import ObjectGraph

/// The same invoices without the searchable declaration: what a batch insert costs without
/// the index's triggers.
final class PlainBenchClient: ManagedObject {
    @Attribute var name: String
    @Relationship(inverse: \PlainBenchInvoice.client, deleteRule: .cascade) var invoices: Set<PlainBenchInvoice>
}

final class PlainBenchInvoice: ManagedObject {
    @Attribute var identifier: String
    @Attribute var notes: String?
    @Attribute var status: String = "draft"
    @Relationship var client: PlainBenchClient?
}

/// Batch inserts of the same invoices into a file with and without the search index.
enum WriteCost {
    /// Runs the rounds and returns the path of an indexed file for the queries.
    static func run(count: Int, rounds: Int, folder: URL) throws -> String {
        var indexed: [Double] = [], plain: [Double] = []
        var kept = ""
        for round in 0..<rounds {
            for column in [round % 2, (round + 1) % 2] {
                let path = folder.appendingPathComponent("write-\(round)-\(column).sqlite").path
                if column == 0 {
                    indexed.append(try insert(count: count, path: path, client: SearchBenchClient.self, invoice: SearchBenchInvoice.self) { n, notes, owner in
                        var row = PropertyValues<SearchBenchInvoice>()
                        row.set(\.identifier, to: "INV-\(n)")
                        row.set(\.notes, to: notes)
                        row.set(\.client, to: owner)
                        return row
                    })
                    if !kept.isEmpty { try? FileManager.default.removeItem(atPath: kept) }
                    kept = path
                } else {
                    plain.append(try insert(count: count, path: path, client: PlainBenchClient.self, invoice: PlainBenchInvoice.self) { n, notes, owner in
                        var row = PropertyValues<PlainBenchInvoice>()
                        row.set(\.identifier, to: "INV-\(n)")
                        row.set(\.notes, to: notes)
                        row.set(\.client, to: owner)
                        return row
                    })
                    try? FileManager.default.removeItem(atPath: path)
                }
            }
        }
        print("batch insert of \(count) invoices (ms per round; ratio indexed / plain)")
        for n in 0..<rounds {
            print("  round \(n + 1): plain \(format(plain[n], 0).leftPad(6))  indexed \(format(indexed[n], 0).leftPad(6))  \(format(indexed[n] / plain[n]))×")
        }
        print("  median:  plain \(format(median(plain), 0).leftPad(6))  indexed \(format(median(indexed), 0).leftPad(6))  \(format(median(zip(indexed, plain).map { $0 / $1 })))×\n")
        return kept
    }

    private static func insert<C: ManagedObject, I: ManagedObject>(
        count: Int, path: String, client: C.Type, invoice: I.Type,
        row makeRow: @escaping (Int, String, ObjectID) -> PropertyValues<I>
    ) throws -> Double {
        let model = try ManagedObjectModel(entities: [C.self, I.self])
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(.sqlite(at: URL(fileURLWithPath: path)))
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let owner = try context.performAndWait {
            let owner = C(context: context)
            try owner.setValue("Acme", forKey: "name")
            try context.save()
            return owner.objectID
        }
        var corpus = Corpus(seed: 42)
        var n = 0
        let start = monotonicNanoseconds()
        let result = try coordinator.execute(BatchInsertRequest<I> {
            guard n < count else { return nil }
            n += 1
            return makeRow(n, corpus.notes(), owner)
        })
        let ms = Double(monotonicNanoseconds() - start) / 1e6
        guard result.count == count else { throw BenchError("inserted \(result.count), expected \(count)") }
        return ms
    }
}
