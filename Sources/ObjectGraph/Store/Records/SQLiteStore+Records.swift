import Foundation

/// ``StoreRecords`` on SQLite: the writer connection, one transaction, no history. SQLite's
/// `data_version` still moves for these commits, so the file's change signal reads history's
/// high-water mark before it reports a change (``SQLiteDataVersion``).
extension SQLiteStore {
    func writeRecords(_ statements: [SQLFragment]) throws -> Int {
        try pool.write { db in
            try db.transaction {
                for statement in statements { try db.run(statement) }
                return db.changes
            }
        }
    }

    func readRecords(_ query: SQLFragment) throws -> [[String?]] {
        try pool.read { db in
            let statement = try db.prepared(query)
            defer { statement.reset() }
            var rows: [[String?]] = []
            let columns = statement.columnCount
            while try statement.step() {
                rows.append((0..<columns).map { statement.isNull(at: $0) ? nil : statement.string(at: $0) })
            }
            return rows
        }
    }
}
