import Foundation
import ObjectGraph

/// An `UPDATE … FROM (VALUES …)` of many rows per statement, for a save's updates that set
/// the same columns: one round trip per statement instead of one per row. A row is written
/// only at the version its context read, as the single-row update does; `RETURNING _pk` says
/// which were, and the save resolves the others one by one.
///
/// ```sql
/// UPDATE "Invoice" AS t SET _version = t._version + 1, "notes" = v."notes", "amount" = v."amount"
/// FROM (VALUES ($1::bigint, $2::bigint, $3::text, $4::double precision), (…)) AS v(_pk, _expected, "notes", "amount")
/// WHERE t._pk = v._pk AND t._version = v._expected RETURNING t._pk
/// ```
///
/// Rows go by the largest of a few fixed counts (512, 64, 8, 1), so a connection prepares at
/// most four statements per table and set of columns.
struct PostgreSQLMultiRowUpdate: Sendable {
    /// Values per row: the key, the expected version, then the columns.
    let width: Int
    /// The positions (in the entity table's `columns`) written.
    let positions: [Int]
    private let statements: [(rows: Int, sql: String)]

    init(_ table: EntityTable, positions: [Int]) {
        self.positions = positions
        width = positions.count + 2
        let names = positions.map { table.columns[$0].name }
        let types = ["bigint", "bigint"] + positions.map { position -> String in
            switch table.columns[position].kind {
            case .attribute(let type): PostgreSQLSchema.columnType(type)
            case .toOne: "bigint"
            }
        }
        let assignments = names.map { ", \($0) = v.\($0)" }.joined()
        let head = "UPDATE \(table.table) AS t SET _version = t._version + 1\(assignments) FROM (VALUES "
        let tail = ") AS v(_pk, _expected\(names.map { ", " + $0 }.joined())) WHERE t._pk = v._pk AND t._version = v._expected RETURNING t._pk"
        statements = PostgreSQLMultiRowInsert.rowCounts(width: width).map { rows in
            var sql = head
            var n = 0
            for row in 0..<rows {
                sql += row == 0 ? "(" : ", ("
                for (column, type) in types.enumerated() {
                    n += 1
                    sql += (column == 0 ? "$" : ", $") + String(n) + "::" + type
                }
                sql += ")"
            }
            return (rows, sql + tail)
        }
    }

    /// Writes `rows`; the keys of the rows written.
    func run(_ rows: [SaveWriterUpdate], table: EntityTable, in db: PostgreSQLConnection) throws -> Set<Int64> {
        var written = Set<Int64>()
        var start = 0
        while start < rows.count {
            guard let (count, sql) = statements.first(where: { $0.rows <= rows.count - start }) else { break }
            var bindings: [StoredValue] = []
            bindings.reserveCapacity(count * width)
            for row in rows[start..<(start + count)] {
                bindings.append(.int(row.primaryKey))
                bindings.append(.int(row.expected))
                for position in positions { bindings.append(row.values[table.columns[position].index]) }
            }
            let result = try db.query(numbered: sql, bindings)
            for n in 0..<result.rowCount { written.insert(result.int(n, 0)) }
            start += count
        }
        return written
    }
}
