import Foundation
import ObjectGraph

/// Searches of the indexed file, side by side: raw SQLite's LIKE scan and FTS5, and
/// ObjectGraph's fetches with a ``SearchQuery``.
struct QueryBenchmark {
    struct Query {
        let label: String
        let like: String
        let match: String
        let search: SearchQuery
    }

    static let queries: [Query] = [
        Query(label: "zeppelin (0.1% of notes)", like: "%zeppelin%", match: "\"zeppelin\"", search: SearchQuery("zeppelin")),
        Query(label: "zepp* (prefix, 0.1%)", like: "%zepp%", match: "\"zepp\"*", search: SearchQuery("zepp*")),
        Query(label: "widget (5%)", like: "%widget%", match: "\"widget\"", search: SearchQuery("widget")),
        Query(label: "invoice (30%)", like: "%invoice%", match: "\"invoice\"", search: SearchQuery("invoice")),
    ]
    static let columns = ["LIKE scan (raw)", "FTS5 (raw)", "ObjectGraph IDs", "LIKE page (raw)", "FTS5 page (raw)",
                          "ObjectGraph page"]
    static let pageSize = 50
    static let table = "\"SearchBenchInvoice\"", index = "\"_og_fts_SearchBenchInvoice\""

    let raw: RawSQLite
    let coordinator: PersistentStoreCoordinator
    let context: ManagedObjectContext
    let invoices: Int

    init(path: String, invoices: Int) throws {
        raw = try RawSQLite(path: path)
        coordinator = PersistentStoreCoordinator(model: try ManagedObjectModel(entities: [SearchBenchClient.self, SearchBenchInvoice.self]))
        try coordinator.addPersistentStore(.sqlite(at: URL(fileURLWithPath: path)))
        context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        self.invoices = invoices
    }

    func run(rounds: Int) throws {
        // times[query][column][round] in ms; rows[query][column]
        var times = [[[Double]]](repeating: [[Double]](repeating: [], count: Self.columns.count), count: Self.queries.count)
        var rows = [[Int]](repeating: [Int](repeating: 0, count: Self.columns.count), count: Self.queries.count)
        for round in 0..<rounds {
            for (q, query) in Self.queries.enumerated() {
                for offset in 0..<Self.columns.count {
                    let column = (offset + round) % Self.columns.count
                    var best = Double.infinity
                    for _ in 0..<3 {
                        let start = monotonicNanoseconds()
                        rows[q][column] = try measure(column, query)
                        best = min(best, Double(monotonicNanoseconds() - start) / 1e6)
                    }
                    times[q][column].append(best)
                }
            }
        }
        report(times: times, rows: rows, rounds: rounds)
    }

    /// Runs one column's search once; returns the rows it found.
    private func measure(_ column: Int, _ query: Query) throws -> Int {
        switch column {
        case 0: return try raw.run("SELECT _pk FROM \(Self.table) WHERE notes LIKE ?", binding: query.like)
        case 1: return try raw.run("SELECT rowid FROM \(Self.index) WHERE \(Self.index) MATCH ?", binding: query.match)
        case 2:
            return try context.performAndWait {
                var request = FetchRequest<SearchBenchInvoice>()
                request.searchQuery = query.search
                request.sortsBySearchRank = false
                return try context.fetchObjectIDs(request).count
            }
        case 3: return try raw.run("SELECT _pk, notes FROM \(Self.table) WHERE notes LIKE ? LIMIT \(Self.pageSize)", binding: query.like)
        case 4:
            return try raw.run("""
                SELECT t0._pk, t0.notes FROM \(Self.table) t0 JOIN \(Self.index) ON \(Self.index).rowid = t0._pk
                WHERE \(Self.index) MATCH ? ORDER BY \(Self.index).rank LIMIT \(Self.pageSize)
                """, binding: query.match)
        default:
            return try context.performAndWait {
                var request = FetchRequest<SearchBenchInvoice>(fetchLimit: Self.pageSize)
                request.searchQuery = query.search
                return try context.fetch(request).reduce(0) { count, invoice in count + ((invoice.notes?.isEmpty ?? true) ? 0 : 1) }
            }
        }
    }

    private func report(times: [[[Double]]], rows: [[Int]], rounds: Int) {
        print("search over \(invoices) invoices' notes: ms per round (best of 3), ratio to the LIKE scan of the round")
        for (q, query) in Self.queries.enumerated() {
            print("\n\(query.label)")
            let baseline = times[q][0]
            for (c, name) in Self.columns.enumerated() {
                let ms = times[q][c]
                let ratios = zip(ms, baseline).map { $0 / $1 }
                print("  \(name.rightPad(17)) \(String(rows[q][c]).leftPad(6)) rows  median \(format(median(ms), 3).leftPad(8)) ms  \(format(median(ratios), 4).leftPad(7))×  rounds: "
                      + zip(ms, ratios).map { "\(format($0, 2)) (\(format($1, 3))×)" }.joined(separator: " "))
            }
        }
    }
}
