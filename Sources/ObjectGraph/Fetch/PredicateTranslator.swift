import Foundation

/// Translates a Foundation `#Predicate` into an SQL condition over the store's tables.
///
/// The caller writes `SELECT … FROM "Invoice" t0 WHERE <fragment>`: the root object is the row
/// aliased `t0`. Properties reached through relationships become correlated subqueries
/// (`t1`, `t2`, …), so the fragment needs no joins and never multiplies rows.
///
/// The contract is that the SQL selects exactly the rows for which `predicate.evaluate(object)`
/// is true. Where SQLite cannot do what Swift does (Unicode-aware string length, exact Decimal
/// arithmetic, regular expressions, …) the translator throws ``PredicateTranslationError``
/// instead of approximating; the fetch can then fall back to filtering in memory.
///
/// Known, documented differences (both sides agree for the data the store normally holds):
/// - Strings compare by code points in SQL and by canonical equivalence in Swift. Bound strings
///   are normalized to NFC, so both agree when stored text is NFC (what keyboards and browsers
///   produce); the store should write NFC for full agreement.
/// - `contains` / `starts(with:)` on strings match code points in SQL and whole characters in
///   Swift: they differ only when the searched text splits a grapheme cluster (a combining mark
///   or an emoji sequence).
/// - `localizedStandardContains` lower-cases ASCII only in SQL; Swift also folds non-ASCII case
///   and diacritics.
/// - Where Swift's evaluation traps or throws (a force unwrap of nil, integer overflow, division
///   by zero), SQL returns some answer rather than failing.
struct PredicateTranslator {
    /// The alias of the root entity's table in the caller's `FROM` clause.
    static let rootAlias = "t0"

    private let schema: any PredicateSchema
    let rootEntity: String
    /// The SQL dialect of the store the condition is for.
    let dialect: SQLDialect

    init(schema: some PredicateSchema, rootEntity: String, dialect: SQLDialect = .sqlite) {
        self.schema = schema
        self.rootEntity = rootEntity
        self.dialect = dialect
    }

    /// The `WHERE` condition selecting the rows of `rootEntity` for which `predicate` is true.
    func translate<Root>(_ predicate: Predicate<Root>) throws -> SQLFragment {
        let translation = PredicateTranslation(schema: schema, dialect: dialect)
        let root = SQLOperand(row: rootEntity, .alias(Self.rootAlias), isNullable: false)
        return try translation.withVariable(predicate.variable.key, boundTo: root) {
            try translation.condition(translation.operand(predicate.expression))
        }
    }
}

/// A `PredicateExpressions` type the translator knows. The Foundation types conform
/// retroactively (see `PredicateTranslator+Expressions.swift`); the translator finds the
/// conformance of each node by a dynamic cast, which also resolves the conditional conformances
/// of generic nodes at run time.
protocol SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand
}

/// The state of one translation: the bound variables and the subquery aliases used so far.
/// A class because nested subqueries and to-many filters translate lazily and share it.
final class PredicateTranslation {
    let schema: any PredicateSchema
    let dialect: SQLDialect
    private var variables: [PredicateExpressions.VariableID: SQLOperand] = [:]
    private var aliasCount = 0

    init(schema: any PredicateSchema, dialect: SQLDialect) {
        self.schema = schema
        self.dialect = dialect
    }

    /// A table alias unused in this translation, so nested subqueries never shadow each other.
    func makeAlias() -> String {
        aliasCount += 1
        return "t\(aliasCount)"
    }

    /// Translates any expression node; unknown nodes throw, naming their type.
    func operand(_ expression: Any) throws -> SQLOperand {
        guard let translatable = expression as? any SQLTranslatableExpression else {
            if let folded = constantFolded(expression) { return folded }
            throw PredicateTranslationError.unsupported(expression)
        }
        do {
            return try translatable.sqlOperand(in: self)
        } catch let error as PredicateTranslationError {
            // E.g. Decimal arithmetic on captured values: exact in Swift, refused in SQL.
            if let folded = constantFolded(expression) { return folded }
            throw error
        }
    }

    /// A sub-expression that reads no variable (`limits.max()`, `price + fee` on captured
    /// values) is the same for every row, whatever SQL could do with it: Swift computes it once
    /// and SQL gets the result as a bound value. Nil when it reads a variable (evaluation then
    /// throws for the unbound variable) or its result cannot be bound. Used only where SQL
    /// has no form, so expressions SQL can compute are never evaluated here.
    func constantFolded(_ expression: Any) -> SQLOperand? {
        guard let expression = expression as? any PredicateExpression,
              let value = try? Self.evaluateWithoutVariables(expression) else { return nil }
        return try? constant(value)
    }

    private static func evaluateWithoutVariables<E: PredicateExpression>(_ expression: E) throws -> Any {
        try expression.evaluate(PredicateBindings())
    }

    func variable(_ key: PredicateExpressions.VariableID) throws -> SQLOperand {
        guard let bound = variables[key] else {
            throw PredicateTranslationError.unsupportedExpression(
                description: "The predicate uses a variable that none of its closures declares; "
                    + "build the predicate with #Predicate.")
        }
        return bound
    }

    /// Runs `body` with `key` bound, restoring the previous binding: closure variables
    /// (`flatMap`, `contains(where:)`) are scoped like in Swift.
    func withVariable<Result>(_ key: PredicateExpressions.VariableID, boundTo value: SQLOperand,
                              _ body: () throws -> Result) rethrows -> Result {
        let previous = variables[key]
        variables[key] = value
        defer { variables[key] = previous }
        return try body()
    }

    /// The operand as an SQL condition that is never NULL: SQL's three-valued logic would make
    /// `NOT (NULL)` false where Swift's two-valued one gives true.
    func condition(_ operand: SQLOperand) throws -> SQLFragment {
        guard case .scalar(.bool) = operand.kind else {
            throw PredicateTranslationError.unsupportedExpression(
                description: "The predicate's condition is not a Bool expression the store can test.")
        }
        return operand.isNullable ? dialect.nullAsFalse(operand.fragment) : operand.fragment
    }
}

/// A translated sub-expression: SQL for its value and what Swift type of value it stands for.
struct SQLOperand {
    /// How a row of an entity is reached.
    enum RowReference {
        /// A table alias in scope: columns are read directly (`t0."name"`).
        case alias(String)
        /// An expression holding the row's `_pk` (a to-one column): columns are read by subquery.
        case key(SQLFragment)
    }

    /// A to-many relationship of some owner row, with the `filter` closures applied to it.
    struct ToMany {
        var owner: SQLFragment
        var entity: String
        var mapping: SQLSchema.RelationshipMapping
        /// Each returns a condition on the member aliased by its argument.
        var filters: [(String) throws -> SQLFragment]
    }

    indirect enum Kind {
        /// A single value, stored as the attribute type says.
        case scalar(AttributeType)
        /// `nil`: its type is the other operand's.
        case null
        /// An object of `entity`; `fragment` is its `_pk`.
        case row(entity: String, RowReference)
        case toMany(ToMany)
        /// A captured array or set, for `IN`.
        case list([StoredValue])
        case range(lower: SQLOperand, upper: SQLOperand, isClosed: Bool)
    }

    var fragment: SQLFragment
    var kind: Kind
    /// Whether the SQL value can be NULL: an optional in Swift, or a value reached through an
    /// optional to-one relationship.
    var isNullable: Bool
    /// Whether the value is NULL whenever the optional it was reached from is nil (a column read
    /// through a to-one key): `flatMap` then needs no `CASE` to return nil for nil.
    var propagatesNull = false
    /// For a stored attribute: its entity, its quoted column and the key of the row holding
    /// it (`t0._pk`, or a to-one column), so a substring test can look the row up in the
    /// attribute's substring index.
    var column: (entity: String, column: String, rowKey: SQLFragment)?
    /// For an optional's `flatMap` to a non-null condition (`CASE WHEN optional IS NULL THEN
    /// NULL ELSE condition END`): the optional and the condition, so that `== true` can be
    /// written as `optional IS NOT NULL AND condition`, which SQL can plan with indexes.
    var whenPresent: (optional: SQLFragment, condition: SQLFragment, lookup: SubstringLookup?)?
    /// For a substring test that reads a substring index: the lookup its SQL was built from
    /// (see ``SubstringLookup``), so that `||` can merge two lookups into one.
    var substringLookup: SubstringLookup?

    init(_ fragment: SQLFragment, _ kind: Kind, isNullable: Bool) {
        self.fragment = fragment
        self.kind = kind
        self.isNullable = isNullable
    }

    init(row entity: String, _ reference: RowReference, isNullable: Bool) {
        let key: SQLFragment
        switch reference {
        case .alias(let alias): key = SQLFragment("\(raw: alias).\(raw: SQLSchema.primaryKeyColumn)")
        case .key(let fragment): key = fragment
        }
        self.init(key, .row(entity: entity, reference), isNullable: isNullable)
    }

    static func boolean(_ fragment: SQLFragment) -> SQLOperand {
        SQLOperand(fragment, .scalar(.bool), isNullable: false)
    }

    static var null: SQLOperand { SQLOperand(SQLFragment("NULL"), .null, isNullable: true) }
}

// MARK: - Building SQL

/// The translator's nodes write `sql("(\(lhs) AND \(rhs))")`: an ``SQLFragment`` built by
/// interpolation, its bindings in text order.
func sql(_ fragment: SQLFragment) -> SQLFragment { fragment }

// MARK: - Captured values

/// Lets the translator see through `Optional` without knowing the wrapped type.
protocol OptionalPredicateValue {
    var wrappedPredicateValue: Any? { get }
}

extension Optional: OptionalPredicateValue {
    var wrappedPredicateValue: Any? { self.map { $0 as Any } }
}

/// Lets the translator read the bounds of a captured `a...b` or `a..<b`.
protocol RangePredicateValue {
    var predicateBounds: (lower: Any, upper: Any, isClosed: Bool) { get }
}

extension ClosedRange: RangePredicateValue {
    var predicateBounds: (lower: Any, upper: Any, isClosed: Bool) { (lowerBound, upperBound, true) }
}

extension Range: RangePredicateValue {
    var predicateBounds: (lower: Any, upper: Any, isClosed: Bool) { (lowerBound, upperBound, false) }
}

extension PredicateTranslation {
    /// A captured value as an operand: `?` with its binding, `NULL`, a list or a range.
    func constant(_ value: Any) throws -> SQLOperand {
        guard let value = Self.unwrapped(value) else { return .null }
        if let range = value as? any RangePredicateValue {
            let bounds = range.predicateBounds
            return SQLOperand(SQLFragment(""), .range(lower: try constant(bounds.lower),
                                                      upper: try constant(bounds.upper),
                                                      isClosed: bounds.isClosed),
                              isNullable: false)
        }
        if let stored = try Self.storedValue(value) {
            return SQLOperand(SQLFragment("?", [stored]), .scalar(Self.attributeType(of: stored)),
                              isNullable: false)
        }
        if let sequence = value as? any Sequence {
            let elements = try Self.elements(of: sequence).map { element -> StoredValue in
                guard let element = Self.unwrapped(element) else { return .null }
                guard let stored = try Self.storedValue(element) else {
                    throw Self.unbindable(element)
                }
                return stored
            }
            return SQLOperand(SQLFragment(""), .list(elements), isNullable: false)
        }
        throw Self.unbindable(value)
    }

    private static func unbindable(_ value: Any) -> PredicateTranslationError {
        .unsupportedValue(description: "A captured value of type \(type(of: value)) cannot be "
            + "compared in SQL; capture a String, integer, Double, Bool, Date, Decimal, UUID, Data, "
            + "an enum with such a raw value, or an array of them.")
    }

    private static func elements<S: Sequence>(of sequence: S) -> [Any] {
        sequence.map { $0 as Any }
    }

    /// The value inside any depth of optionals; nil for nil.
    static func unwrapped(_ value: Any) -> Any? {
        guard let optional = value as? any OptionalPredicateValue else { return value }
        return optional.wrappedPredicateValue.flatMap(unwrapped)
    }

    /// The value as the store binds it; nil for a type that is no single value (a collection).
    static func storedValue(_ value: Any) throws -> StoredValue? {
        switch value {
        // NFC because Swift compares strings by canonical equivalence and SQLite by code
        // points: the two agree for NFC text, which is what the store normally holds.
        case let v as String: return .string(v.precomposedStringWithCanonicalMapping)
        case let v as Substring: return .string(String(v).precomposedStringWithCanonicalMapping)
        case let v as Bool: return .bool(v)
        case let v as Double: return .double(v)
        case let v as Float: return .double(Double(v))
        case let v as Decimal: return .decimal(v)
        case let v as Date: return .date(v)
        case let v as UUID: return .uuid(v)
        case let v as Data: return .data(v)
        // An object ID compares as its primary key; a temporary one names no stored row.
        case let v as ObjectID: return .int(v.primaryKey ?? -1)
        case let v as any BinaryInteger:
            guard let int = Int64(exactly: v) else {
                throw PredicateTranslationError.unsupportedValue(
                    description: "The captured integer \(v) does not fit the store's 64-bit integers.")
            }
            return .int(int)
        case let v as any RawRepresentable:
            // Enumerations are stored as their raw value (see AttributeValue).
            let raw = v.rawValue
            guard let rawValue = unwrapped(raw), let stored = try storedValue(rawValue) else {
                throw unbindable(value)
            }
            return stored
        default:
            return nil
        }
    }

    static func attributeType(of value: StoredValue) -> AttributeType {
        switch value {
        case .string: return .string
        case .bool: return .bool
        case .int: return .int64
        case .double: return .double
        case .decimal: return .decimal
        case .date: return .date
        case .uuid: return .uuid
        case .data: return .data
        // Not produced by `storedValue`; TEXT compares like the store's own binding of them.
        case .null, .reference, .references, .unloaded: return .int64
        }
    }
}
