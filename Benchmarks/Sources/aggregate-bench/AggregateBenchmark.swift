import Foundation
import ObjectGraph

/// The rounds: ObjectGraph and raw SQLite, one after the other (alternating which goes first),
/// on the same file, for every invoice and for the sent ones.
struct AggregateBenchmark {
    let context: ManagedObjectContext
    let raw: RawTotals
    let dataset: Dataset

    /// A store of `dataset`'s invoices, written by a batch insert.
    static func makeStore(at path: String, dataset: Dataset) throws -> ManagedObjectContext {
        let model = try ManagedObjectModel(entities: [BenchClient.self, BenchInvoice.self])
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(.sqlite(at: URL(fileURLWithPath: path)))
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let client = try context.performAndWait {
            let client = BenchClient(context: context)
            client.name = "Acme"
            try context.save()
            return client.objectID
        }
        let rows = dataset.amounts.enumerated().map { n, amount in
            var row = PropertyValues<BenchInvoice>()
            row.set(\.identifier, to: "INV-\(n)")
            row.set(\.amount, to: amount)
            row.set(\.currency, to: Dataset.currency(n))
            row.set(\.status, to: Dataset.isSent(n) ? "sent" : "draft")
            row.set(\.client, to: client)
            return row
        }
        _ = try coordinator.execute(BatchInsertRequest(rows: rows))
        return context
    }

    func objectGraphTotals(sentOnly: Bool) throws -> [String: Decimal] {
        try context.performAndWait {
            let predicate: Predicate<BenchInvoice>? = sentOnly ? #Predicate { $0.status == "sent" } : nil
            let rows = try context.aggregate(AggregateRequest(
                BenchInvoice.self, predicate: predicate, groupBy: \.currency, computing: .sum(\.amount)))
            return Dictionary(uniqueKeysWithValues: rows.map { ($0.0, $0.1) })
        }
    }

    func run(rounds: Int) throws {
        print("aggregate-bench: totals per currency of \(dataset.count) invoices (5 currencies), \(rounds) rounds")
        print("  ObjectGraph: AggregateRequest(groupBy: \\.currency, computing: .sum(\\.amount)), exact Decimals")
        print("  raw SQLite:  SELECT currency, SUM(amount) … GROUP BY currency, prepared once, reused")
        for sentOnly in [false, true] {
            try check(sentOnly: sentOnly)
            var ours: [Double] = [], theirs: [Double] = [], ratios: [Double] = []
            _ = try objectGraphTotals(sentOnly: sentOnly)   // warm-up, untimed
            _ = try raw.totals(sentOnly: sentOnly)
            print(sentOnly ? "\nsent invoices (a third; predicate status == \"sent\")" : "\nevery invoice")
            for round in 1...rounds {
                var og = 0.0, sql = 0.0
                for side in round.isMultiple(of: 2) ? [0, 1] : [1, 0] {
                    let start = monotonicNanoseconds()
                    if side == 0 { _ = try objectGraphTotals(sentOnly: sentOnly) } else { _ = try raw.totals(sentOnly: sentOnly) }
                    let ms = Double(monotonicNanoseconds() - start) / 1e6
                    if side == 0 { og = ms } else { sql = ms }
                }
                ours.append(og); theirs.append(sql); ratios.append(og / sql)
                print("  round \(round): ObjectGraph \(format(og)) ms, raw SQLite \(format(sql)) ms, ratio \(format(og / sql))")
            }
            print("  median: ObjectGraph \(format(median(ours))) ms, raw SQLite \(format(median(theirs))) ms, "
                  + "median ratio \(format(median(ratios)))")
        }
    }

    /// ObjectGraph's totals must be exact; says how far SQLite's are off.
    private func check(sentOnly: Bool) throws {
        let exact = sentOnly ? dataset.sentTotals : dataset.totals
        let ours = try objectGraphTotals(sentOnly: sentOnly)
        guard ours == exact else { throw BenchError("ObjectGraph's totals are not exact: \(ours) vs \(exact)") }
        let theirs = try raw.totals(sentOnly: sentOnly)
        let off = exact.keys.sorted().compactMap { currency -> String? in
            let sqlite = Decimal(string: "\(theirs[currency] ?? .nan)") ?? .nan
            return sqlite == exact[currency] ? nil : "\(currency) \(sqlite) instead of \(exact[currency] ?? 0)"
        }
        print(off.isEmpty
              ? "\(sentOnly ? "sent" : "all"): SQLite's SUM happens to be exact here"
              : "\(sentOnly ? "sent" : "all"): SQLite's SUM is NOT exact (time is compared only): \(off.joined(separator: "; "))")
    }
}
