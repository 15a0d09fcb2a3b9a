import Foundation

extension SQLiteStore {
    /// The rows `fetchRows` returns, handed to `body` a batch of up to `batchSize` at a time as
    /// they are read, so a fetch never holds an array of every row beside the objects made
    /// from them. `body` runs while the query holds its reader connection: it must not read
    /// the store.
    package func forEachBatch(_ entity: EntityDescription, join: String, where condition: SQLFragment?, orderBy: String?,
                      limit: Int?, offset: Int, batchSize: Int,
                      _ body: (ArraySlice<(ObjectID, RowSnapshot)>) throws -> Void) throws {
        let table = table(for: entity)
        let sql = Self.select(table.selectList, from: table, join: join, where: condition, orderBy: orderBy,
                              limit: limit, offset: offset)
        readQueryCount.add(1, ordering: .relaxed)
        try pool.read { db in
            let statement = try db.statement(sql)
            defer { statement.reset() }
            statement.bind(condition?.bindings ?? [])
            var batch: [(ObjectID, RowSnapshot)] = []
            batch.reserveCapacity(batchSize)
            while try statement.step() {
                batch.append(table.snapshot(from: statement, store: storeCode))
                if batch.count == batchSize {
                    try body(batch[...])
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if !batch.isEmpty { try body(batch[...]) }
        }
    }
}
