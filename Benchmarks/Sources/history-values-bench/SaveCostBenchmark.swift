import CSQLiteBench
import Foundation
import ObjectGraph

/// What recording values costs a save: a root context saves N updated invoices (amount and
/// status changed on each), on a file without history, with history (names only), and with
/// history recording values; beside raw SQLite updating the same rows with a prepared
/// statement in one transaction, and raw SQLite also writing the same history rows by hand.
/// Only the save is timed (the fetch and the edits are not).
enum SaveCostBenchmark {
    enum Column: String, CaseIterable {
        case raw = "raw SQLite, rows only"
        case rawHistory = "raw SQLite, rows + history values"
        case plain = "ObjectGraph, no history"
        case names = "ObjectGraph, history (names)"
        case values = "ObjectGraph, history + values"
    }

    static func run(updates: Int, rounds: Int, folder: URL) throws {
        print("save of \(updates) updated objects (amount and status each), ms; ratio to raw SQLite rows only")
        print("  round  " + Column.allCases.map { $0.rawValue.leftPadded(34) }.joined())
        var times: [Column: [Double]] = [:]
        for round in 0..<rounds {
            // Rotate the order so warm-up and noise spread over the columns.
            let order = Column.allCases.indices.map { Column.allCases[($0 + round) % Column.allCases.count] }
            var row: [Column: Double] = [:]
            for column in order {
                let path = folder.appendingPathComponent("save-\(round)-\(column).sqlite").path
                row[column] = try measure(column, updates: updates, path: path)
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
                times[column, default: []].append(row[column] ?? .nan)
            }
            print("  \(String(round + 1).leftPadded(5))  " + line(row))
        }
        print("  median " + line(times.mapValues(median)))
        let names = median(times[.names] ?? []), values = median(times[.values] ?? [])
        print("  recording values adds \(format((values / names - 1) * 100))% to a save with history "
              + "(\(format((values - names) * 1000 / Double(updates), 2)) µs per updated object)")
    }

    private static func line(_ row: [Column: Double]) -> String {
        let raw = row[.raw] ?? .nan
        return Column.allCases.map { column in
            let ms = row[column] ?? .nan
            return "\(format(ms)) ms (\(format(ms / raw, 2))×)".leftPadded(34)
        }.joined()
    }

    private static func measure(_ column: Column, updates: Int, path: String) throws -> Double {
        switch column {
        case .raw: return try rawSQLite(updates: updates, path: path, history: false)
        case .rawHistory: return try rawSQLite(updates: updates, path: path, history: true)
        case .plain: return try objectGraph(PlainInvoice.self, model: BenchModels.plain, history: false, updates: updates, path: path)
        case .names: return try objectGraph(PlainInvoice.self, model: BenchModels.plain, history: true, updates: updates, path: path)
        case .values: return try objectGraph(ValuedInvoice.self, model: BenchModels.valued, history: true, updates: updates, path: path)
        }
    }

    private static func objectGraph<T: EditedInvoice>(_ type: T.Type, model: ManagedObjectModel, history: Bool,
                                                      updates: Int, path: String) throws -> Double {
        let coordinator = try BenchModels.coordinator(model, at: path, history: history)
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "bench")
        return try context.performAndWait {
            for n in 0..<updates {
                let invoice = T(context: context)
                invoice.identifier = "INV-\(n)"
                invoice.amount = Decimal(n) / 100
            }
            try context.save()
            context.reset()
            let invoices = try context.fetch(FetchRequest<T>())
            guard invoices.count == updates else { throw BenchError("fetched \(invoices.count)") }
            for (n, invoice) in invoices.enumerated() {
                invoice.amount += 1
                invoice.status = n.isMultiple(of: 2) ? "sent" : "paid"
            }
            let start = nowMilliseconds()
            try context.save()
            return nowMilliseconds() - start
        }
    }

    /// The same rows, and in the second column the same history rows ObjectGraph writes: a
    /// transaction, a change per row, two value rows per change (old values known, as a
    /// context knows its base).
    private static func rawSQLite(updates: Int, path: String, history: Bool) throws -> Double {
        let db = try seed(updates: updates, path: path)
        let olds = (0..<updates).map { "\(Decimal($0) / 100)" }, news = (0..<updates).map { "\(Decimal($0) / 100 + 1)" }
        let update = try db.statement("UPDATE invoice SET _version = _version + 1, amount = ?, status = ? WHERE _pk = ? AND _version = ?")
        let transaction = try db.statement("INSERT INTO _og_history_transaction (timestamp, author, context, pid, coordinator) VALUES (?, NULL, 'bench', ?, 'raw')")
        let change = try db.statement("INSERT INTO _og_history_change (txn, entity, pk, kind, updated) VALUES (?, 'invoice', ?, 1, 'amount,status')")
        let value = try db.statement("INSERT INTO _og_history_value (change, property, type, destination, old, new) VALUES (?, ?, ?, NULL, ?, ?)")
        let start = nowMilliseconds()
        try db.exec("BEGIN IMMEDIATE")
        var txn: Int64 = 0
        if history {
            sqlite3_bind_double(transaction, 1, Date().timeIntervalSince1970)
            sqlite3_bind_int64(transaction, 2, Int64(getpid()))
            try db.run(transaction)
            txn = sqlite3_last_insert_rowid(db.db)
        }
        for n in 0..<updates {
            let status = n.isMultiple(of: 2) ? "sent" : "paid"
            sqlite3_reset(update)
            db.bind(update, 1, news[n])
            db.bind(update, 2, status)
            sqlite3_bind_int64(update, 3, Int64(n + 1))
            sqlite3_bind_int64(update, 4, 1)
            try db.run(update)
            guard history else { continue }
            sqlite3_reset(change)
            sqlite3_bind_int64(change, 1, txn)
            sqlite3_bind_int64(change, 2, Int64(n + 1))
            try db.run(change)
            let id = sqlite3_last_insert_rowid(db.db)
            for (property, type, old, new) in [("amount", Int64(7), olds[n], news[n]), ("status", Int64(1), "draft", status)] {
                sqlite3_reset(value)
                sqlite3_bind_int64(value, 1, id)
                db.bind(value, 2, property)
                sqlite3_bind_int64(value, 3, type)
                db.bind(value, 4, old)
                db.bind(value, 5, new)
                try db.run(value)
            }
        }
        try db.exec("COMMIT")
        return nowMilliseconds() - start
    }

    /// A raw file with ObjectGraph's history tables and `updates` invoices.
    private static func seed(updates: Int, path: String) throws -> RawSQLite {
        let db = try RawSQLite(path: path)
        try db.exec("""
            CREATE TABLE invoice (_pk INTEGER PRIMARY KEY, _version INTEGER NOT NULL DEFAULT 1, identifier TEXT,
                                  amount TEXT, status TEXT, notes TEXT);
            CREATE TABLE _og_history_transaction (number INTEGER PRIMARY KEY AUTOINCREMENT, timestamp REAL NOT NULL,
                author TEXT, context TEXT, pid INTEGER NOT NULL, coordinator TEXT NOT NULL);
            CREATE TABLE _og_history_change (id INTEGER PRIMARY KEY, txn INTEGER NOT NULL, entity TEXT NOT NULL,
                pk INTEGER NOT NULL, kind INTEGER NOT NULL, updated TEXT);
            CREATE INDEX _og_history_change_txn ON _og_history_change(txn);
            CREATE INDEX _og_history_change_object ON _og_history_change(entity, pk, txn);
            CREATE TABLE _og_history_value (change INTEGER NOT NULL, property TEXT NOT NULL, type INTEGER NOT NULL,
                destination TEXT, old, new, PRIMARY KEY (change, property)) WITHOUT ROWID;
            BEGIN;
            """)
        let insert = try db.statement("INSERT INTO invoice (_pk, identifier, amount, status) VALUES (?, ?, ?, 'draft')")
        for n in 0..<updates {
            sqlite3_reset(insert)
            sqlite3_bind_int64(insert, 1, Int64(n + 1))
            db.bind(insert, 2, "INV-\(n)")
            db.bind(insert, 3, "\(Decimal(n) / 100)")
            try db.run(insert)
        }
        try db.exec("COMMIT")
        return db
    }
}
