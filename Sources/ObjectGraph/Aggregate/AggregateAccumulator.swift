import CSQLite
import Foundation

/// One aggregate of one group, as rows and unsaved objects are added to it.
///
/// Rows come straight from the statement (a Decimal's text is read in place, never through
/// a `String`); unsaved objects' values come as ``StoredValue``s and take the same path, so
/// a value counts the same whether it is saved or not.
struct AggregateAccumulator {
    let function: AggregateTerm.Function
    /// The attribute's type; nil for `count`.
    let type: AttributeType?
    /// The statement column it reads; unused for `count`.
    let column: Int32
    /// Objects (`count`) or values (the others) added.
    private var count = 0
    private var integer: Int64 = 0
    private var integerOverflowed = false
    private var double: Double = 0
    private var decimal = DecimalSum()
    private var extreme: StoredValue?
    private var decimalExtreme: DecimalExtreme?

    init(_ term: AggregatePlan.Term) {
        function = term.function
        type = term.type
        column = Int32(term.column ?? -1)
        if term.type == .decimal && (function == .minimum || function == .maximum) {
            decimalExtreme = DecimalExtreme(keepsLarger: function == .maximum)
        }
    }

    /// Adds the current row of `statement`.
    mutating func add(from statement: SQLiteStatement) {
        if function == .count { count += 1; return }
        guard let type else { return }
        let columnType = sqlite3_column_type(statement.handle, column)
        if columnType == SQLITE_NULL { return }
        if function == .countValues { count += 1; return }
        if type == .decimal && columnType == SQLITE_TEXT,
           let text = sqlite3_column_text(statement.handle, column),
           let value = ExactDecimal(utf8: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement.handle, column)))) {
            count += 1
            add(value)
            return
        }
        add(statement.value(at: column, as: type))
    }

    /// Adds an unsaved object's value (`.null` for `count`, which only counts).
    mutating func add(_ value: StoredValue) {
        if function == .count { count += 1; return }
        if value.isNull { return }
        count += 1
        switch (function, value) {
        case (.countValues, _): break
        case (.sum, .int(let v)), (.average, .int(let v)):
            let (sum, overflow) = integer.addingReportingOverflow(v)
            integer = sum
            integerOverflowed = integerOverflowed || overflow
        case (.sum, .double(let v)), (.average, .double(let v)): double += v
        case (.sum, .decimal(let v)), (.average, .decimal(let v)): decimal.add(v)
        case (.minimum, .decimal(let v)), (.maximum, .decimal(let v)): decimalExtreme?.consider(v)
        case (.minimum, _):
            if extreme.map({ value.precedes($0) }) ?? true { extreme = value }
        case (.maximum, _):
            if extreme.map({ $0.precedes(value) }) ?? true { extreme = value }
        default: break
        }
    }

    /// Adds a canonical Decimal (counted by the caller).
    private mutating func add(_ value: ExactDecimal) {
        switch function {
        case .sum, .average: decimal.add(value)
        case .minimum, .maximum: decimalExtreme?.consider(value)
        case .count, .countValues: break
        }
    }

    /// The result in stored form: `.null` for an extreme or average of no values.
    /// - Throws: ``AggregateError/overflow(_:)`` for an integer sum past 64 bits.
    func result(name: String) throws -> StoredValue {
        switch function {
        case .count, .countValues: return .int(Int64(count))
        case .sum:
            switch type {
            case .int, .int64:
                if integerOverflowed { throw AggregateError.overflow(name) }
                return .int(integer)
            case .double: return .double(double)
            default: return .decimal(decimal.total)
            }
        case .average:
            guard count > 0 else { return .null }
            switch type {
            case .int, .int64:
                if integerOverflowed { throw AggregateError.overflow(name) }
                return .double(Double(integer) / Double(count))
            case .double: return .double(double / Double(count))
            default: return .decimal(decimal.total / Decimal(count))
            }
        case .minimum, .maximum:
            if let decimalExtreme { return decimalExtreme.result.map { .decimal($0) } ?? .null }
            return extreme ?? .null
        }
    }
}

/// The smallest or largest of some Decimals, compared exactly: as ``ExactDecimal``s while
/// they fit, as `Decimal`s otherwise.
struct DecimalExtreme {
    let keepsLarger: Bool
    private var best: ExactDecimal?
    /// The best so far when it does not fit an ``ExactDecimal``.
    private var bestDecimal: Decimal?

    init(keepsLarger: Bool) { self.keepsLarger = keepsLarger }

    mutating func consider(_ value: ExactDecimal) {
        if let current = best {
            let better = keepsLarger ? current.isLess(than: value) : value.isLess(than: current)
            if better ?? isBetter(value.decimal, than: current.decimal) { best = value }
        } else if let current = bestDecimal {
            if isBetter(value.decimal, than: current) { best = value; bestDecimal = nil }
        } else {
            best = value
        }
    }

    mutating func consider(_ value: Decimal) {
        if let exact = ExactDecimal(StoredValue.decimalText(value)) { consider(exact); return }
        guard let current = result else { bestDecimal = value; return }
        if isBetter(value, than: current) { best = nil; bestDecimal = value }
    }

    private func isBetter(_ value: Decimal, than current: Decimal) -> Bool {
        keepsLarger ? current < value : value < current
    }

    var result: Decimal? { best?.decimal ?? bestDecimal }
}

extension StoredValue {
    /// The order of aggregate results and group keys: nil first, then by value (numbers
    /// and dates numerically, Decimals exactly, strings as Swift's `<`, false before true).
    func precedes(_ other: StoredValue) -> Bool {
        switch (self, other) {
        case (.int(let a), .int(let b)): return a < b
        case (.double(let a), .double(let b)): return a < b
        case (.date(let a), .date(let b)): return a < b
        case (.decimal(let a), .decimal(let b)): return a < b
        case (.string(let a), .string(let b)): return a < b
        case (.bool(let a), .bool(let b)): return !a && b
        case (.uuid(let a), .uuid(let b)): return a.uuidString < b.uuidString
        case (.data(let a), .data(let b)): return a.lexicographicallyPrecedes(b)
        default: return rank < other.rank
        }
    }

    /// Orders values of different kinds (only nil meets another kind in practice).
    private var rank: Int {
        switch self {
        case .null, .unloaded: return 0
        case .bool: return 1
        case .int, .double, .decimal, .date: return 2
        case .string: return 3
        case .uuid: return 4
        case .data: return 5
        case .reference, .references: return 6
        }
    }
}
