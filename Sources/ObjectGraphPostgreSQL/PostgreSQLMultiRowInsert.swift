import Foundation
import ObjectGraph

/// An `INSERT … VALUES (…), (…), …` of many rows per statement, for batch inserts and their
/// history: one round trip per statement instead of one per row.
///
/// Rows go in by the largest of a few fixed counts that fits what is left (512, 64, 8, 1
/// rows, or fewer when a statement would pass PostgreSQL's 65,535 parameters), so a
/// connection prepares at most four statements per table, whatever the batch's size.
///
/// ```sql
/// INSERT INTO "Invoice" (_pk, _version, "identifier", …) VALUES ($1, $2, $3, …), ($9, $10, …) ON CONFLICT DO NOTHING RETURNING _pk
/// ```
struct PostgreSQLMultiRowInsert {
    /// The values of one row, in `columns` order.
    let width: Int
    /// Rows per statement, largest first, each with its SQL (parameters numbered).
    private let statements: [(rows: Int, sql: String)]

    /// - Parameters:
    ///   - columns: the quoted column names.
    ///   - suffix: what follows the rows (`ON CONFLICT …`, `RETURNING …`), or nothing.
    ///   - maxRows: the most rows per statement (1: a prepared single-row statement per row).
    init(into table: String, columns: [String], suffix: String = "", maxRows: Int = 512) {
        width = columns.count
        let sizes = Self.rowCounts(width: columns.count, maxRows: maxRows)
        let head = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
        statements = sizes.map { rows in
            var sql = head
            sql.reserveCapacity(head.utf8.count + rows * columns.count * 7 + suffix.utf8.count)
            var n = 0
            for row in 0..<rows {
                sql += row == 0 ? "(" : ", ("
                for column in 0..<columns.count {
                    n += 1
                    sql += column == 0 ? "$\(n)" : ", $\(n)"
                }
                sql += ")"
            }
            return (rows, suffix.isEmpty ? sql : sql + " " + suffix)
        }
    }

    /// The rows per statement of a multi-row statement of `width` parameters a row, largest
    /// first: the fixed counts that stay under PostgreSQL's 65,535 parameters and `maxRows`.
    static func rowCounts(width: Int, maxRows: Int = 512) -> [Int] {
        let limit = max(1, min(maxRows, 65_535 / max(1, width)))
        return [512, 64, 8, 1].filter { $0 <= limit }
    }

    /// Inserts `values` (rows of `width` values, one after another), calling `body` with each
    /// statement's result and the positions of its rows.
    func run(_ values: [StoredValue], in db: PostgreSQLConnection,
             _ body: (PostgreSQLResult, Range<Int>) throws -> Void = { _, _ in }) throws {
        let rowCount = values.count / max(1, width)
        var row = 0
        while row < rowCount {
            guard let (rows, sql) = statements.first(where: { $0.rows <= rowCount - row }) else { return }
            let bindings = Array(values[(row * width)..<((row + rows) * width)])
            try body(try db.query(numbered: sql, bindings), row..<(row + rows))
            row += rows
        }
    }
}
