import Foundation
import ObjectGraph

/// ``StoreRecords`` on PostgreSQL: the writer connection, one transaction, without the
/// `pg_notify` of data writes, so no other server hears of them as a change.
extension PostgreSQLStore {
    ///
    /// Servers starting together on a new database each run the records' `CREATE TABLE IF NOT
    /// EXISTS`; PostgreSQL lets all but one of them fail on its catalog (23505, or 42P07) rather
    /// than wait. Such a statement is run once more: the table is then there.
    package func writeRecords(_ statements: [SQLFragment]) throws -> Int {
        do {
            return try writeRecordsOnce(statements)
        } catch StoreError.server(let state, _, _) where state == "23505" || state == "42P07" {
            return try writeRecordsOnce(statements)
        }
    }

    private func writeRecordsOnce(_ statements: [SQLFragment]) throws -> Int {
        try pool.write { db in
            try db.transaction {
                var changed = 0
                for statement in statements { changed = try db.run(statement) }
                return changed
            }
        }
    }

    package func readRecords(_ query: SQLFragment) throws -> [[String?]] {
        let result = try read { try $0.query(query) }
        let columns = result.columnCount
        return (0..<result.rowCount).map { row in (0..<columns).map { result.text(row, $0) } }
    }
}
