import Foundation

/// The SQL of one entity's table, built once when the store opens.
///
/// A class: a save asks for its entity's table once per row, and handing out a reference
/// costs one retain where a copy of these strings and arrays cost a dozen.
package final class EntityTable: Sendable {
    package enum Column: Sendable {
        case attribute(AttributeType)
        /// The destination entity's number in ``ObjectID``s.
        case toOne(destination: UInt32)
    }

    package let entity: String
    package let entityCode: UInt32
    package let table: String
    /// Properties stored as columns of this table, by property index, in SELECT order.
    package let columns: [(index: Int, name: String, kind: Column)]
    package let propertyCount: Int
    /// Indices of to-many properties (not columns).
    package let toManyIndices: [Int]
    /// `t0._pk, t0._version, t0."col", ...`
    package let selectList: String
    /// One row by primary key: a fault's query, made once rather than per fault.
    package let selectByKeySQL: String
    package let insertSQL: String
    /// How many rows `chunkInsertSQL` inserts: at most 64, and never more parameters than
    /// the 999 every SQLite build allows.
    package let rowsPerInsert: Int
    /// `insertSQL` for `rowsPerInsert` rows at once.
    package let chunkInsertSQL: String
    /// `insertSQL` for several rows at once, by row count, largest first: `rowsPerInsert`,
    /// 8 (when smaller) and 1, so that a save's last rows also go several per statement.
    package let insertStatements: [(rows: Int, sql: String)]
    package let updateSQL: String
    /// UPDATEs of some columns, by their positions in `columns`: made once per set of
    /// columns, not per saved row.
    private let partialUpdateSQL = Locked<[[Int]: String]>([:])
    package let deleteSQL: String
    /// How ``snapshot(from:store:offset:)`` fills each property, in property order.
    private let readPlan: [ReadStep]

    private enum ReadStep: Sendable {
        /// A to-many relationship: not a column, loaded on first use.
        case unloaded
        /// An attribute in the column at this position after `_pk` and `_version`.
        case attribute(AttributeType, column: Int32)
        case toOne(destination: UInt32, column: Int32)
    }

    package init(entity: EntityDescription) {
        self.entity = entity.name
        self.entityCode = entity.code
        self.table = SQLSchema.table(entity)
        self.propertyCount = entity.properties.count
        var columns: [(Int, String, Column)] = []
        var toMany: [Int] = []
        for (i, p) in entity.properties.enumerated() {
            switch p {
            case .attribute(let a): columns.append((i, SQLSchema.quote(a.name), .attribute(a.type)))
            case .relationship(let r):
                if r.isToMany { toMany.append(i) }
                else {
                    columns.append((i, SQLSchema.quote(r.name), .toOne(destination: ObjectID.entityCode(for: r.destinationEntityName))))
                }
            }
        }
        self.columns = columns
        self.toManyIndices = toMany
        var plan = [ReadStep](repeating: .unloaded, count: entity.properties.count)
        for (position, (index, _, kind)) in columns.enumerated() {
            switch kind {
            case .attribute(let type): plan[index] = .attribute(type, column: Int32(position))
            case .toOne(let destination): plan[index] = .toOne(destination: destination, column: Int32(position))
            }
        }
        readPlan = plan
        let names = columns.map(\.1)
        selectList = (["t0._pk", "t0._version"] + names.map { "t0.\($0)" }).joined(separator: ", ")
        selectByKeySQL = "SELECT \(selectList) FROM \(table) t0 WHERE t0._pk = ?"
        let rowValues = "(?, 1\(String(repeating: ", ?", count: names.count)))"
        insertSQL = "INSERT INTO \(table) (_pk, _version\(names.map { ", \($0)" }.joined())) VALUES \(rowValues)"
        rowsPerInsert = max(1, min(64, 999 / (names.count + 1)))
        let (single, most) = (insertSQL, rowsPerInsert)
        let statements: [(rows: Int, sql: String)] = [most, 8, 1].filter { $0 <= most }.reduce(into: []) { sizes, rows in
            if sizes.last?.rows != rows {
                sizes.append((rows, single + String(repeating: ", " + rowValues, count: rows - 1)))
            }
        }
        insertStatements = statements
        chunkInsertSQL = statements[0].sql
        updateSQL = "UPDATE \(table) SET _version = _version + 1\(names.map { ", \($0) = ?" }.joined()) WHERE _pk = ? AND _version = ?"
        deleteSQL = "DELETE FROM \(table) WHERE _pk = ? AND _version = ?"
    }

    /// `UPDATE … SET _version = _version + 1, <the columns at these positions> = ? …
    /// WHERE _pk = ? AND _version = ?`.
    package func updateSQL(only positions: [Int]) -> String {
        if let sql = partialUpdateSQL.withLock({ $0[positions] }) { return sql }
        let assignments = positions.map { ", \(columns[$0].name) = ?" }.joined()
        let sql = "UPDATE \(table) SET _version = _version + 1\(assignments) WHERE _pk = ? AND _version = ?"
        partialUpdateSQL.withLock { $0[positions] = sql }
        return sql
    }

    /// Reads a row selected with `selectList` (starting at `offset`) into a snapshot.
    ///
    /// The values are appended in property order to an array made with room for them all:
    /// one allocation, each value written once. (`Array(repeating:count:)` allocates through
    /// the standard library's unspecialized path, a generic metadata look-up per row.)
    func snapshot(from statement: SQLiteStatement, store: UInt32, offset: Int32 = 0) -> (ObjectID, RowSnapshot) {
        let pk = statement.int(at: offset)
        let version = statement.int(at: offset + 1)
        let first = offset + 2
        var values: [StoredValue] = []
        values.reserveCapacity(propertyCount)
        for step in readPlan {
            switch step {
            case .unloaded:
                values.append(.unloaded)
            case .attribute(let type, let column):
                values.append(statement.value(at: first + column, as: type))
            case .toOne(let destination, let column):
                values.append(statement.isNull(at: first + column) ? .null
                    : .reference(ObjectID(entityCode: destination, storeCode: store, value: statement.int(at: first + column))))
            }
        }
        let id = ObjectID(entityCode: entityCode, storeCode: store, value: pk)
        return (id, RowSnapshot(values: values, version: version))
    }
}
