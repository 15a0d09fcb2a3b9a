import Foundation

extension SQLiteStore {
    /// Adds the rows an aggregate plan selects to `table`, in one query on a reader
    /// connection, leaving out the rows with the primary keys in `excluded` (those whose
    /// unsaved changes the caller adds instead).
    ///
    /// ```sql
    /// SELECT t0."currency", t0."amount" FROM "Invoice" t0
    /// WHERE (t0."status" = ?) AND t0._pk NOT IN (SELECT value FROM json_each(?))
    /// ```
    ///
    /// The excluded keys are bound as one JSON array, so the statement is the same (and
    /// cached) however many there are.
    func aggregate(_ plan: AggregatePlan, excluding excluded: [Int64], into table: inout GroupTable) throws {
        let sql = plan.sql(excludingKeys: !excluded.isEmpty)
        var bindings = plan.condition?.bindings ?? []
        if !excluded.isEmpty { bindings.append(SQLDialect.keyList(excluded)) }
        readQueryCount.add(1, ordering: .relaxed)
        try pool.read { db in
            let statement = try db.prepared(SQLFragment(sql, bindings))
            defer { statement.reset() }
            while try statement.step() { table.add(row: statement) }
        }
    }
}
