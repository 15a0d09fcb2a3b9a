import Foundation

/// A piece of SQL with its `?` parameters, in order: how every statement of the stores and
/// every translated predicate is built.
///
/// Write it by interpolation, so that placeholders and values cannot drift apart: a value
/// becomes `?` with its binding, a fragment brings its bindings in text order, and names from
/// the schema go in as `raw:` text.
///
/// ```swift
/// let select: SQLFragment = "SELECT \(raw: table.selectList) FROM \(raw: table.table) t0 WHERE t0._pk = \(.int(pk))"
/// // sql: SELECT t0._pk, … FROM "Client" t0 WHERE t0._pk = ?    bindings: [.int(pk)]
/// ```
///
/// PostgreSQL numbers its parameters (`$1`, `$2`); its connection renumbers the `?` when it
/// prepares a statement, so fragments are written the same for both dialects.
package struct SQLFragment: Sendable, Equatable, ExpressibleByStringInterpolation {
    package var sql: String
    package var bindings: [StoredValue]

    package init(_ sql: String, _ bindings: [StoredValue] = []) {
        self.sql = sql
        self.bindings = bindings
    }

    package init(stringLiteral value: String) { self.init(value) }
    package init(stringInterpolation: Interpolation) { self = stringInterpolation.fragment }

    package struct Interpolation: StringInterpolationProtocol {
        var fragment = SQLFragment("")

        package init(literalCapacity: Int, interpolationCount: Int) {
            fragment.sql.reserveCapacity(literalCapacity + 16 * interpolationCount)
        }

        package mutating func appendLiteral(_ literal: String) { fragment.sql += literal }

        /// Another fragment, with its bindings.
        package mutating func appendInterpolation(_ other: SQLFragment) {
            fragment.sql += other.sql
            fragment.bindings += other.bindings
        }

        /// A value, bound: `?`.
        package mutating func appendInterpolation(_ value: StoredValue) {
            fragment.sql += "?"
            fragment.bindings.append(value)
        }

        /// Values, bound: `?, ?, ?`.
        package mutating func appendInterpolation(values: [StoredValue]) {
            fragment.sql += Array(repeating: "?", count: values.count).joined(separator: ", ")
            fragment.bindings += values
        }

        /// An identifier, alias or clause: trusted text from the schema, never user input.
        package mutating func appendInterpolation(raw text: String) { fragment.sql += text }
    }
}

extension Sequence<SQLFragment> {
    /// The fragments one after the other, `separator` between them, bindings in order.
    package func joined(separator: String) -> SQLFragment {
        var result = SQLFragment("")
        for (n, fragment) in enumerated() {
            if n > 0 { result.sql += separator }
            result.sql += fragment.sql
            result.bindings += fragment.bindings
        }
        return result
    }
}

extension StoredValue {
    /// The canonical text a Decimal is stored as: exact, and equal texts for equal values,
    /// so equality can be tested in SQL. Comparisons use `CAST(column AS REAL)`.
    static func decimalText(_ value: Decimal) -> String { DecimalText.text(of: value) ?? "\(value)" }
}
