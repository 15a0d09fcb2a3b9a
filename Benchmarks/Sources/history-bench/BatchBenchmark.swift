import CSQLiteBench
import Foundation
import ObjectGraph

/// Batch insert of N invoices and batch delete of them: ObjectGraph (history off and on)
/// against raw SQLite doing the same rows with a prepared statement in one transaction.
enum BatchBenchmark {
    struct Timings { var insert: [Double] = []; var delete: [Double] = [] }

    static func run(count: Int, rounds: Int, folder: URL) throws {
        var raw = Timings(), rawReturning = Timings(), plain = Timings(), history = Timings()
        for round in 0..<rounds {
            // Rotate the order so warm-up and noise spread over the columns.
            let order = [0, 1, 2, 3].map { ($0 + round) % 4 }
            for column in order {
                let path = folder.appendingPathComponent("batch-\(round)-\(column).sqlite").path
                switch column {
                case 0:
                    let (i, d) = try rawSQLite(count: count, path: path, returning: false)
                    raw.insert.append(i); raw.delete.append(d)
                case 3:
                    let (i, d) = try rawSQLite(count: count, path: path, returning: true)
                    rawReturning.insert.append(i); rawReturning.delete.append(d)
                case 1:
                    let (i, d) = try objectGraph(count: count, path: path, history: false)
                    plain.insert.append(i); plain.delete.append(d)
                default:
                    let (i, d) = try objectGraph(count: count, path: path, history: true)
                    history.insert.append(i); history.delete.append(d)
                }
            }
        }
        let rawInsert = median(raw.insert), rawDelete = median(raw.delete)
        print("batch of \(count) invoices, median of \(rounds) rounds (ms; ratio to raw SQLite)")
        print("  column                        insert        delete")
        print("  (raw DELETE without WHERE empties the table wholesale; with RETURNING _pk it deletes row by row,")
        print("   as anything that must tell contexts which objects went has to)")
        for (name, t) in [("raw SQLite", raw), ("raw SQLite, RETURNING _pk", rawReturning),
                          ("ObjectGraph, history off", plain), ("ObjectGraph, history on", history)] {
            let i = median(t.insert), d = median(t.delete)
            print("  \(name.padding(toLength: 28, withPad: " ", startingAt: 0))\(format(i).leftPad(8)) (\(format(i / rawInsert, 2))×)\(format(d).leftPad(8)) (\(format(d / rawDelete, 2))×)")
        }
    }

    static func objectGraph(count: Int, path: String, history: Bool) throws -> (Double, Double) {
        let coordinator = try BenchModel.coordinator(at: path, history: history)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let client = try context.performAndWait {
            let client = BenchClient(context: context)
            client.name = "Acme"
            try context.save()
            return client.objectID
        }
        var n = 0
        let start = monotonicNanoseconds()
        let inserted = try coordinator.execute(BatchInsertRequest<BenchInvoice> {
            guard n < count else { return nil }
            n += 1
            var row = PropertyValues<BenchInvoice>()
            row.set(\.identifier, to: "INV-\(n)")
            row.set(\.amount, to: Double(n % 10_000) / 100)
            row.set(\.status, to: n.isMultiple(of: 3) ? "sent" : "draft")
            row.set(\.issueDate, to: Date(timeIntervalSince1970: 1_700_000_000 + Double(n) * 60))
            row.set(\.client, to: client)
            return row
        })
        let insertMs = Double(monotonicNanoseconds() - start) / 1e6
        guard inserted.count == count else { throw BenchError("inserted \(inserted.count), expected \(count)") }
        let deleteStart = monotonicNanoseconds()
        let deleted = try coordinator.execute(BatchDeleteRequest<BenchInvoice>(predicate: nil))
        let deleteMs = Double(monotonicNanoseconds() - deleteStart) / 1e6
        guard deleted.count == count else { throw BenchError("deleted \(deleted.count), expected \(count)") }
        return (insertMs, deleteMs)
    }

    static func rawSQLite(count: Int, path: String, returning: Bool) throws -> (Double, Double) {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw BenchError("cannot open \(path)") }
        defer { sqlite3_close(db) }
        func exec(_ sql: String) throws {
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
        }
        try exec("""
            PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
            CREATE TABLE client (_pk INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE invoice (_pk INTEGER PRIMARY KEY, _version INTEGER NOT NULL DEFAULT 1, identifier TEXT, amount REAL,
                                  currency TEXT, status TEXT, issueDate REAL, notes TEXT, client INTEGER);
            CREATE INDEX invoice_client ON invoice(client);
            INSERT INTO client (_pk, name) VALUES (1, 'Acme');
            """)
        var statement: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO invoice (_pk, identifier, amount, currency, status, issueDate, notes, client) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let start = monotonicNanoseconds()
        try exec("BEGIN IMMEDIATE")
        for n in 1...count {
            sqlite3_reset(statement)
            sqlite3_bind_int64(statement, 1, Int64(n))
            // Lengths in bytes, as the store binds text: -1 would stop at a NUL.
            let identifier = "INV-\(n)", currency = "EUR", status = n.isMultiple(of: 3) ? "sent" : "draft"
            sqlite3_bind_text(statement, 2, identifier, Int32(identifier.utf8.count), transient)
            sqlite3_bind_double(statement, 3, Double(n % 10_000) / 100)
            sqlite3_bind_text(statement, 4, currency, Int32(currency.utf8.count), transient)
            sqlite3_bind_text(statement, 5, status, Int32(status.utf8.count), transient)
            sqlite3_bind_double(statement, 6, 1_700_000_000 + Double(n) * 60)
            sqlite3_bind_null(statement, 7)
            sqlite3_bind_int64(statement, 8, 1)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
        }
        try exec("COMMIT")
        let insertMs = Double(monotonicNanoseconds() - start) / 1e6
        let deleteStart = monotonicNanoseconds()
        if returning {
            var delete: OpaquePointer?
            sqlite3_prepare_v2(db, "DELETE FROM invoice RETURNING _pk", -1, &delete, nil)
            var keys: [Int64] = []
            keys.reserveCapacity(count)
            while sqlite3_step(delete) == SQLITE_ROW { keys.append(sqlite3_column_int64(delete, 0)) }
            sqlite3_finalize(delete)
            guard keys.count == count else { throw BenchError("raw deleted \(keys.count)") }
        } else {
            try exec("DELETE FROM invoice")
        }
        let deleteMs = Double(monotonicNanoseconds() - deleteStart) / 1e6
        return (insertMs, deleteMs)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension String {
    func leftPad(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
