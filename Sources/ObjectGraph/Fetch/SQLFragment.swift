import Foundation

/// A piece of SQL with its `?` parameters, in order.
struct SQLFragment: Sendable, Equatable {
    var sql: String
    var bindings: [StoredValue]

    init(_ sql: String, _ bindings: [StoredValue] = []) {
        self.sql = sql
        self.bindings = bindings
    }
}

extension StoredValue {
    /// The canonical text a Decimal is stored as: exact, and equal texts for equal values,
    /// so equality can be tested in SQL. Comparisons use `CAST(column AS REAL)`.
    static func decimalText(_ value: Decimal) -> String { DecimalText.text(of: value) ?? "\(value)" }
}
