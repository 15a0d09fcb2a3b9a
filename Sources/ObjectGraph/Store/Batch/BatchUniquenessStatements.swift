import Foundation

/// The look-ups that name the uniqueness constraint a batch request broke, the same SQL for
/// every store: stores learn that a unique index refused a statement, never which of the
/// model's constraints it was, so they look the values up.
package enum BatchUniquenessStatements {
    /// A query that returns a row when, once a batch update set `values` (property index →
    /// value) on the rows matching `condition`, two rows would hold the same values of
    /// `group`: the table's values, with the set ones in place of the old on the rows the
    /// update selects. Nil when the update sets no property of `group`.
    ///
    /// ```sql
    /// SELECT 1 FROM (SELECT CASE WHEN s._pk IN (SELECT t0._pk FROM "Client" t0 WHERE …) THEN ? ELSE s."email" END AS c0
    ///                FROM "Client" s) x
    /// WHERE x.c0 IS NOT NULL GROUP BY x.c0 HAVING COUNT(*) > 1 LIMIT 1
    /// ```
    package static func clash(of group: [Int], set values: [Int: StoredValue], where condition: SQLFragment?,
                              entity: EntityDescription) -> SQLFragment? {
        guard group.contains(where: { values[$0] != nil }) else { return nil }
        let table = SQLSchema.table(entity)
        let columns = group.enumerated().map { n, index -> SQLFragment in
            let column = "s.\(SQLSchema.quote(entity.properties[index].name))"
            guard let value = values[index] else { return "\(raw: column) AS c\(raw: String(n))" }
            guard let condition else { return "\(value) AS c\(raw: String(n))" }
            return """
                CASE WHEN s._pk IN (SELECT t0._pk FROM \(raw: table) t0 WHERE \(condition)) THEN \(value) \
                ELSE \(raw: column) END AS c\(raw: String(n))
                """
        }
        let names = group.indices.map { "x.c\($0)" }
        return """
            SELECT 1 FROM (SELECT \(columns.joined(separator: ", ")) FROM \(raw: table) s) x
            WHERE \(raw: names.map { "\($0) IS NOT NULL" }.joined(separator: " AND "))
            GROUP BY \(raw: names.joined(separator: ", ")) HAVING COUNT(*) > 1 LIMIT 1
            """
    }
}
