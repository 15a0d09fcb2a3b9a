import CSQLiteBench
import Foundation
import ObjectGraph

/// One object's history among a long one: a file with `transactions` transactions (written
/// in bulk by SQL, one change with one value each, over 100,000 other invoices), the target
/// invoice saved 20 times in between through a context. Times
/// `coordinator.history(of:limit:)` (a page of 20, newest first and oldest first) beside raw
/// SQLite running the same two queries with prepared statements, interleaved over rounds.
enum ObjectHistoryBenchmark {
    static func run(transactions: Int, reads: Int, rounds: Int, folder: URL) throws {
        let path = folder.appendingPathComponent("history-\(transactions).sqlite").path
        let coordinator = try BenchModels.coordinator(BenchModels.valued, at: path, history: true)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "editor")
        context.transactionAuthor = "bench"
        let target = try context.performAndWait {
            let invoice = ValuedInvoice(context: context)
            invoice.identifier = "TARGET"
            try context.save()
            return invoice.objectID
        }
        guard let targetKey = target.primaryKey else { throw BenchError("the target has no key") }
        let filler = try RawSQLite(path: path)
        let fillStart = nowMilliseconds()
        for half in 0..<2 {
            try fill(filler, transactions: transactions / 2, seed: half)
            try context.performAndWait {
                let invoice = try context.existingObject(with: target, as: ValuedInvoice.self)
                for n in 1...10 {
                    invoice.amount = Decimal(half * 10 + n)
                    try context.save()
                }
            }
        }
        let total = try filler.integer("SELECT COUNT(*) FROM _og_history_transaction")
        print("history of one object among \(total) transactions (filled in \(format((nowMilliseconds() - fillStart) / 1000)) s); "
              + "a page of 20, \(reads) reads per round, µs per read (median; p99); ratio to raw SQLite")
        let raw = try RawSQLite(path: path)
        var medians: [String: [Double]] = [:]
        for round in 0..<rounds {
            var row: [String] = []
            for order in [HistoryOrder.newestFirst, .oldestFirst] {
                var ours: [Double] = [], theirs: [Double] = []
                for n in 0..<reads {
                    // Alternate which goes first, read by read.
                    let first = n.isMultiple(of: 2)
                    if first { ours.append(try timeObjectGraph(coordinator, target, order, expected: 20)) }
                    theirs.append(try timeRaw(raw, key: targetKey, order: order, expected: 20))
                    if !first { ours.append(try timeObjectGraph(coordinator, target, order, expected: 20)) }
                }
                let name = order == .newestFirst ? "newest first" : "oldest first"
                medians["\(name) ObjectGraph", default: []].append(median(ours))
                medians["\(name) raw", default: []].append(median(theirs))
                row.append("\(name): ObjectGraph \(format(median(ours) * 1000, 0)) µs (p99 \(format(percentile(ours, 0.99) * 1000, 0))), "
                           + "raw \(format(median(theirs) * 1000, 0)) µs (p99 \(format(percentile(theirs, 0.99) * 1000, 0))), "
                           + "\(format(median(ours) / median(theirs), 2))×")
            }
            print("  round \(round + 1): " + row.joined(separator: "; "))
        }
        for name in ["newest first", "oldest first"] {
            let ours = median(medians["\(name) ObjectGraph"] ?? []), theirs = median(medians["\(name) raw"] ?? [])
            print("  median \(name): ObjectGraph \(format(ours * 1000, 0)) µs, raw SQLite \(format(theirs * 1000, 0)) µs, "
                  + "\(format(ours / theirs, 2))× (goal: well under 10 ms: \(ours < 10 ? "met" : "NOT met"))")
        }
        try reopenWithoutIndex(path: path, coordinatorToClose: coordinator)
    }

    /// `transactions` transactions of one change and one value each, over 100,000 other
    /// invoices, in one write transaction of bulk SQL.
    static func fill(_ db: RawSQLite, transactions: Int, seed: Int) throws {
        try db.exec("""
            BEGIN IMMEDIATE;
            CREATE TEMP TABLE IF NOT EXISTS fill_base AS SELECT 0 AS number;
            DELETE FROM temp.fill_base;
            INSERT INTO temp.fill_base SELECT IFNULL(MAX(number), 0) FROM _og_history_transaction;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(transactions))
            INSERT INTO _og_history_transaction (timestamp, author, context, pid, coordinator)
                SELECT 1700000000 + i, 'filler', 'bulk', 1, 'filler' FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(transactions))
            INSERT INTO _og_history_change (txn, entity, pk, kind, updated)
                SELECT (SELECT number FROM temp.fill_base) + i, 'ValuedInvoice', 1000 + (i * 7919 + \(seed)) % 100000, 1, 'amount' FROM n;
            INSERT INTO _og_history_value (change, property, type, destination, old, new)
                SELECT id, 'amount', 7, NULL, '1.5', '2.5' FROM _og_history_change
                WHERE txn > (SELECT number FROM temp.fill_base);
            COMMIT;
            """)
    }

    private static func timeObjectGraph(_ coordinator: PersistentStoreCoordinator, _ id: ObjectID, _ order: HistoryOrder,
                                        expected: Int) throws -> Double {
        let start = nowMilliseconds()
        let page = try coordinator.history(of: id, order: order, limit: 20)
        let elapsed = nowMilliseconds() - start
        guard page.count == expected, page.allSatisfy({ $0.changes.first?.values["amount"] != nil || $0.changes.first?.kind == .insert })
        else { throw BenchError("ObjectGraph read \(page.count) transactions") }
        return elapsed
    }

    /// The same work at its best: the page's changes with their transactions along the index,
    /// then each change's values by key, read into plain tuples.
    private static func timeRaw(_ db: RawSQLite, key: Int64, order: HistoryOrder, expected: Int) throws -> Double {
        let direction = order == .newestFirst ? "DESC" : "ASC"
        let start = nowMilliseconds()
        let changes = try db.statement("""
            SELECT c.id, c.txn, c.entity, c.pk, c.kind, c.updated, t.timestamp, t.author, t.context, t.pid
            FROM _og_history_change c JOIN _og_history_transaction t ON t.number = c.txn
            WHERE c.entity = 'ValuedInvoice' AND c.pk = ? ORDER BY c.txn \(direction), c.id \(direction) LIMIT ?
            """)
        sqlite3_bind_int64(changes, 1, key)
        sqlite3_bind_int64(changes, 2, Int64(expected))
        var rows: [(id: Int64, txn: Int64, kind: Int64, timestamp: Double, author: String?)] = []
        while sqlite3_step(changes) == SQLITE_ROW {
            let author = sqlite3_column_text(changes, 7).map { String(cString: $0) }
            rows.append((sqlite3_column_int64(changes, 0), sqlite3_column_int64(changes, 1), sqlite3_column_int64(changes, 4),
                         sqlite3_column_double(changes, 6), author))
        }
        let values = try db.statement("SELECT property, type, destination, old, new FROM _og_history_value WHERE change = ?")
        var read: [(String, String?, String?)] = []
        for row in rows {
            sqlite3_reset(values)
            sqlite3_bind_int64(values, 1, row.id)
            while sqlite3_step(values) == SQLITE_ROW {
                read.append((String(cString: sqlite3_column_text(values, 0)),
                             sqlite3_column_text(values, 3).map { String(cString: $0) },
                             sqlite3_column_text(values, 4).map { String(cString: $0) }))
            }
        }
        let elapsed = nowMilliseconds() - start
        guard rows.count == expected else { throw BenchError("raw read \(rows.count) changes") }
        return elapsed
    }

    /// A file from before the object index: how long its first open takes to add it.
    private static func reopenWithoutIndex(path: String, coordinatorToClose: PersistentStoreCoordinator) throws {
        let db = try RawSQLite(path: path)
        try db.exec("DROP INDEX _og_history_change_object")
        let start = nowMilliseconds()
        let reopened = try BenchModels.coordinator(BenchModels.valued, at: path, history: true)
        let elapsed = nowMilliseconds() - start
        let indexed = try db.integer("SELECT COUNT(*) FROM sqlite_master WHERE name = '_og_history_change_object'")
        print("  a file without the index gets it on its first open: \(format(elapsed)) ms (index \(indexed == 1 ? "present" : "MISSING"))")
        _ = reopened
    }
}
