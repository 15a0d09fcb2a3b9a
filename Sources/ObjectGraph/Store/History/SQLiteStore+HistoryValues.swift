import CSQLite
import Foundation

/// The type a value was recorded with, kept beside it in `_og_history_value.type`, so a value
/// reads back typed even when its property has left the model. The numbers are part of the
/// file format: never renumber them.
package enum HistoryValueType: Int64 {
    case string = 1, int = 2, int64 = 3, double = 4, bool = 5, date = 6, decimal = 7, uuid = 8, data = 9
    /// A to-one relationship: the destination's primary key, its entity in `destination`.
    case reference = 16

    package init(_ type: AttributeType) {
        switch type {
        case .string: self = .string
        case .int: self = .int
        case .int64: self = .int64
        case .double: self = .double
        case .bool: self = .bool
        case .date: self = .date
        case .decimal: self = .decimal
        case .uuid: self = .uuid
        case .data: self = .data
        }
    }

    package var attributeType: AttributeType? {
        switch self {
        case .string: return .string
        case .int: return .int
        case .int64: return .int64
        case .double: return .double
        case .bool: return .bool
        case .date: return .date
        case .decimal: return .decimal
        case .uuid: return .uuid
        case .data: return .data
        case .reference: return nil
        }
    }
}

/// Values of properties in persistent history (`_og_history_value`): one row per change and
/// property, holding the old and the new value in their column form (decimals as canonical
/// text, dates as seconds, to-one relationships as the destination's key), so each value is
/// stored once, beside its type. The table is keyed by (change, property) without a rowid:
/// one B-tree, no second index to keep, and a large text goes to overflow pages once.
extension SQLiteStore {
    // MARK: Writing

    /// The most value rows one statement writes (6 parameters each, well under 999).
    static let valueRowsPerInsert = 32

    /// `INSERT INTO _og_history_value … VALUES (…)` for 1 to ``valueRowsPerInsert`` rows, by
    /// count - 1.
    static let valueInsertSQL: [String] = (1...valueRowsPerInsert).map { rows in
        "INSERT INTO _og_history_value (change, property, type, destination, old, new) VALUES "
            + Array(repeating: "(?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
    }

    /// Writes one change's values, up to ``valueRowsPerInsert`` per statement; call it inside
    /// the write transaction, after the change row. One statement per change rather than per
    /// value: a statement's own cost (and a search index's flush at its end) came per row.
    func recordValues(_ values: [HistoryValueRecord], change: Int64, entity: EntityDescription,
                      in db: SQLiteConnection) throws {
        let rows = values.compactMap { value in entity.properties[safe: value.index].map { (value, $0) } }
        var start = 0
        while start < rows.count {
            let count = min(Self.valueRowsPerInsert, rows.count - start)
            let statement = try db.statement(Self.valueInsertSQL[count - 1])
            defer { statement.reset() }
            var position: Int32 = 1
            for (value, property) in rows[start..<(start + count)] {
                let (type, destination): (HistoryValueType, StoredValue)
                switch property {
                case .attribute(let a): (type, destination) = (HistoryValueType(a.type), .null)
                case .relationship(let r): (type, destination) = (.reference, .string(r.destinationEntityName))
                }
                // In the statement's order: change, property, type, destination, old, new.
                statement.bind(.int(change), at: position)
                statement.bind(.string(property.name), at: position + 1)
                statement.bind(.int(type.rawValue), at: position + 2)
                statement.bind(destination, at: position + 3)
                statement.bind(value.old ?? .null, at: position + 4)
                statement.bind(value.new ?? .null, at: position + 5)
                position += 6
            }
            try statement.run()
            start += count
        }
    }

    // MARK: Reading old values in a write

    /// The current values of some properties (attributes and to-one relationships) of the
    /// rows `filter` selects, by primary key: what a batch reads before it changes them.
    /// - Parameter filter: SQL after `FROM <table> t0`, such as `WHERE t0._pk IN (...)`.
    func currentValues(of entity: EntityDescription, properties indices: [Int], filter: SQLFragment,
                       in db: SQLiteConnection) throws -> [Int64: [Int: StoredValue]] {
        guard !indices.isEmpty else { return [:] }
        let columns = indices.map { "t0.\(SQLSchema.quote(entity.properties[$0].name))" }.joined(separator: ", ")
        let statement = try db.prepared("SELECT t0._pk, \(raw: columns) FROM \(raw: SQLSchema.table(entity)) t0 \(filter)")
        defer { statement.reset() }
        var result: [Int64: [Int: StoredValue]] = [:]
        while try statement.step() {
            var row: [Int: StoredValue] = [:]
            for (n, index) in indices.enumerated() {
                row[index] = propertyValue(statement, column: Int32(n + 1), property: entity.properties[index])
            }
            result[statement.int(at: 0)] = row
        }
        return result
    }

    /// A column read as the stored value of its property.
    func propertyValue(_ statement: SQLiteStatement, column: Int32, property: PropertyDescription) -> StoredValue {
        switch property {
        case .attribute(let a):
            return statement.value(at: column, as: a.type)
        case .relationship(let r):
            if statement.isNull(at: column) { return .null }
            return .reference(objectID(r.destinationEntityName, primaryKey: statement.int(at: column)))
        }
    }

    // MARK: Reading history

    /// The recorded values of some changes, by change id and property name. `kinds` names the
    /// changes and tells which side each has (inserts no old value, deletes no new one).
    /// - Parameter contiguous: the changes are most of their id range (a stretch of history):
    ///   read the range in one query; otherwise (one object's changes, spread over the
    ///   history) look each change up by its key.
    func historyValues(of kinds: [Int64: PersistentHistoryChange.Kind], contiguous: Bool,
                       in db: SQLiteConnection) throws -> [Int64: [String: HistoryValueChange]] {
        guard let first = kinds.keys.min(), let last = kinds.keys.max() else { return [:] }
        let columns = "SELECT change, property, type, destination, old, new FROM _og_history_value"
        var result: [Int64: [String: HistoryValueChange]] = [:]
        func read(_ statement: SQLiteStatement) throws {
            while try statement.step() {
                let change = statement.int(at: 0)
                guard let kind = kinds[change], let name = statement.string(at: 1) else { continue }
                let type = HistoryValueType(rawValue: statement.int(at: 2))
                let destination = statement.string(at: 3)
                result[change, default: [:]][name] = HistoryValueChange(
                    old: kind == .insert ? nil : historyValue(statement, column: 4, type: type, destination: destination),
                    new: kind == .delete ? nil : historyValue(statement, column: 5, type: type, destination: destination))
            }
            statement.reset()
        }
        if contiguous {
            try read(try db.prepared("\(raw: columns) WHERE change BETWEEN \(.int(first)) AND \(.int(last))"))
        } else {
            for id in kinds.keys { try read(try db.prepared("\(raw: columns) WHERE change = \(.int(id))")) }
        }
        return result
    }

    /// A recorded value, decoded by the type recorded with it; a type this version does not
    /// know (written by a later one) reads in SQLite's own form: integer, double, text or data.
    private func historyValue(_ statement: SQLiteStatement, column: Int32, type: HistoryValueType?,
                              destination: String?) -> HistoryValue {
        if statement.isNull(at: column) { return .null }
        switch type {
        case .reference:
            return .reference(objectID(destination ?? "", primaryKey: statement.int(at: column)))
        case .some(let type):
            if let attributeType = type.attributeType, let value = HistoryValue(statement.value(at: column, as: attributeType)) {
                return value
            }
            return .null
        case .none:
            switch sqlite3_column_type(statement.handle, column) {
            case SQLITE_INTEGER: return .integer(statement.int(at: column))
            case SQLITE_FLOAT: return .double(sqlite3_column_double(statement.handle, column))
            case SQLITE_TEXT: return statement.string(at: column).map { .string($0) } ?? .null
            default: return HistoryValue(statement.value(at: column, as: .data)) ?? .null
            }
        }
    }
}
