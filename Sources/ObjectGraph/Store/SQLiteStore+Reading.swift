import CSQLite
import Foundation

extension SQLiteStore {
    /// Rows of `entity` matching `condition`, as snapshots, in `orderBy` order. `join` puts
    /// another table beside the rows (a search index) for the condition and order to read.
    func fetchRows(_ entity: EntityDescription, join: String = "", where condition: SQLFragment?, orderBy: String?,
                   limit: Int?, offset: Int) throws -> [(ObjectID, RowSnapshot)] {
        let table = table(for: entity)
        let sql = Self.select(table.selectList, from: table, join: join, where: condition, orderBy: orderBy,
                              limit: limit, offset: offset)
        readQueryCount.add(1, ordering: .relaxed)
        return try pool.read { db in
            let statement = try db.statement(sql)
            defer { statement.reset() }
            statement.bind(condition?.bindings ?? [])
            var rows: [(ObjectID, RowSnapshot)] = []
            while try statement.step() {
                rows.append(table.snapshot(from: statement, store: storeCode))
            }
            return rows
        }
    }

    /// Matching rows with the value of `rank` for each (a search's rank), in no order.
    func fetchRankedRows(_ entity: EntityDescription, join: String, where condition: SQLFragment?,
                         rank: String) throws -> [(id: ObjectID, row: RowSnapshot, rank: Double)] {
        let table = table(for: entity)
        let sql = Self.select(table.selectList + ", " + rank, from: table, join: join, where: condition, orderBy: nil,
                              limit: nil, offset: 0)
        let rankColumn = Int32(2 + table.columns.count)
        readQueryCount.add(1, ordering: .relaxed)
        return try pool.read { db in
            let statement = try db.statement(sql)
            defer { statement.reset() }
            statement.bind(condition?.bindings ?? [])
            var rows: [(id: ObjectID, row: RowSnapshot, rank: Double)] = []
            while try statement.step() {
                let (id, row) = table.snapshot(from: statement, store: storeCode)
                rows.append((id, row, statement.double(at: rankColumn)))
            }
            return rows
        }
    }

    /// The IDs of matching rows, without their values.
    func fetchIDs(_ entity: EntityDescription, join: String = "", where condition: SQLFragment?, orderBy: String?,
                  limit: Int?, offset: Int) throws -> [ObjectID] {
        let table = table(for: entity)
        let sql = Self.select("t0._pk", from: table, join: join, where: condition, orderBy: orderBy,
                              limit: limit, offset: offset)
        readQueryCount.add(1, ordering: .relaxed)
        return try pool.read { db in
            let statement = try db.statement(sql)
            defer { statement.reset() }
            statement.bind(condition?.bindings ?? [])
            var ids: [ObjectID] = []
            while try statement.step() {
                ids.append(ObjectID(entityCode: entity.code, storeCode: storeCode, value: statement.int(at: 0)))
            }
            return ids
        }
    }

    func count(_ entity: EntityDescription, join: String = "", where condition: SQLFragment?) throws -> Int {
        let sql = "SELECT COUNT(*) FROM \(SQLSchema.table(entity)) t0" + join + (condition.map { " WHERE \($0.sql)" } ?? "")
        readQueryCount.add(1, ordering: .relaxed)
        return try pool.read { db in
            let statement = try db.statement(sql)
            defer { statement.reset() }
            statement.bind(condition?.bindings ?? [])
            return try statement.step() ? Int(statement.int(at: 0)) : 0
        }
    }

    /// One row by primary key (through a cached statement); nil when it does not exist.
    func row(primaryKey: Int64, entity: EntityDescription) throws -> RowSnapshot? {
        let table = table(for: entity)
        let sql = table.selectByKeySQL
        readQueryCount.add(1, ordering: .relaxed)
        return try pool.read { db in
            let statement = try db.statement(sql)
            defer { statement.reset() }
            statement.bind(.int(primaryKey), at: 1)
            return try statement.step() ? table.snapshot(from: statement, store: storeCode).1 : nil
        }
    }

    /// The destinations of a to-many relationship, with their rows (one query).
    func destinations(of ownerKey: Int64, relationship: RelationshipDescription,
                      entity: EntityDescription) throws -> [(ObjectID, RowSnapshot)] {
        guard let destination = model.entity(named: relationship.destinationEntityName) else { return [] }
        let table = table(for: destination)
        guard let sql = table.destinationsSQL(of: relationship, in: entity, model: model) else { return [] }
        readQueryCount.add(1, ordering: .relaxed)
        return try pool.read { db in
            let statement = try db.statement(sql)
            defer { statement.reset() }
            statement.bind(.int(ownerKey), at: 1)
            var rows: [(ObjectID, RowSnapshot)] = []
            while try statement.step() { rows.append(table.snapshot(from: statement, store: storeCode)) }
            return rows
        }
    }

    static func select(_ columns: String, from table: EntityTable, join: String = "", where condition: SQLFragment?,
                       orderBy: String?, limit: Int?, offset: Int) -> String {
        "SELECT \(columns) FROM \(table.table) t0" + join
            + (condition.map { " WHERE \($0.sql)" } ?? "")
            + (orderBy.map { " ORDER BY \($0)" } ?? "")
            + SQLDialect.sqlite.limitClause(limit: limit, offset: offset)
    }
}
