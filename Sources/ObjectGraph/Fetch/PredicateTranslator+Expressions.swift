import Foundation

// The PredicateExpressions nodes for values, key paths, optionals, logic, comparison and
// arithmetic. Strings and collections are in PredicateTranslator+Collections.swift.

// MARK: - Leaves

/// Marks `Value`, whose key paths are computed in Swift rather than looked up in the schema.
protocol ConstantPredicateExpression {}

extension PredicateExpressions.Value: ConstantPredicateExpression {}

extension PredicateExpressions.Value: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        try translation.constant(value)
    }
}

extension PredicateExpressions.NilLiteral: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand { .null }
}

extension PredicateExpressions.Variable: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        try translation.variable(key)
    }
}

extension PredicateExpressions.KeyPath: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        // A property of a captured value (`limits.minimum`) is computed in Swift.
        if root is any ConstantPredicateExpression, let folded = translation.constantFolded(self) {
            return folded
        }
        let base = try translation.operand(root)
        return try translation.member(keyPath as AnyKeyPath, of: base, baseType: Root.Output.self,
                                      isOptional: Output.self is any OptionalPredicateValue.Type)
    }
}

// MARK: - Optionals

extension PredicateExpressions.OptionalFlatMap: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        let optional = try translation.operand(wrapped)
        if case .null = optional.kind { return .null }
        // Inside the closure the value is not optional, as in Swift; NULL can only reach it
        // when the optional is nil, and the result is then nil whatever the closure says.
        var unwrapped = optional
        unwrapped.isNullable = false
        unwrapped.propagatesNull = true
        var result = try translation.withVariable(variable.key, boundTo: unwrapped) {
            try translation.operand(transform)
        }
        if !result.propagatesNull {
            guard case .scalar = result.kind else {
                throw PredicateTranslationError.unsupported(self, "only values and to-one "
                    + "relationships can be reached through an optional in SQL")
            }
            // The optional's SQL appears twice; a subquery in it keeps its alias in both
            // copies, which SQLite allows since each copy is its own scope.
            if case .scalar(.bool) = result.kind, !result.isNullable {
                result.whenPresent = (optional.fragment, result.fragment, result.currentSubstringLookup)
            } else {
                result.whenPresent = nil   // an inner flatMap's would not test this optional
            }
            result.fragment = sql("CASE WHEN \(optional.fragment) IS NULL THEN NULL ELSE \(result.fragment) END")
        }
        result.column = nil
        result.isNullable = true
        result.propagatesNull = optional.propagatesNull
        return result
    }
}

extension PredicateExpressions.NilCoalesce: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        let optional = try translation.operand(lhs)
        let fallback = try translation.operand(rhs)
        guard let kind = translation.scalarKind(optional, fallback) else {
            throw PredicateTranslationError.unsupported(self, "only values can be defaulted with ?? in SQL")
        }
        return SQLOperand(sql("COALESCE(\(optional.fragment), \(fallback.fragment))"), kind,
                          isNullable: fallback.isNullable)
    }
}

extension PredicateExpressions.ForcedUnwrap: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        // Swift's evaluation throws for nil; SQL has no such failure, so the value is used as
        // is. Treating it as non-optional keeps comparisons as plain `=` like the Swift code.
        var value = try translation.operand(inner)
        value.isNullable = false
        value.propagatesNull = false
        return value
    }
}

// MARK: - Logic

extension PredicateExpressions.Conjunction: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        let left = try translation.condition(translation.operand(lhs))
        let right = try translation.condition(translation.operand(rhs))
        return .boolean(sql("(\(left) AND \(right))"))
    }
}

extension PredicateExpressions.Disjunction: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        let leftOperand = try translation.operand(lhs), rightOperand = try translation.operand(rhs)
        if let left = leftOperand.currentSubstringLookup, let right = rightOperand.currentSubstringLookup,
           let merged = left.merged(with: right), let operand = SQLOperand.boolean(merged) {
            return operand
        }
        let left = try translation.condition(leftOperand)
        let right = try translation.condition(rightOperand)
        return .boolean(sql("(\(left) OR \(right))"))
    }
}

extension PredicateExpressions.Negation: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        .boolean(sql("(NOT \(try translation.condition(translation.operand(wrapped))))"))
    }
}

extension PredicateExpressions.Conditional: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        let test = try translation.condition(translation.operand(self.test))
        let whenTrue = try translation.operand(trueBranch)
        let whenFalse = try translation.operand(falseBranch)
        guard let kind = translation.scalarKind(whenTrue, whenFalse) else {
            throw PredicateTranslationError.unsupported(self, "only values can be chosen with ?: in SQL")
        }
        return SQLOperand(sql("(CASE WHEN \(test) THEN \(whenTrue.fragment) ELSE \(whenFalse.fragment) END)"),
                          kind, isNullable: whenTrue.isNullable || whenFalse.isNullable)
    }
}

// MARK: - Comparison

extension PredicateExpressions.Equal: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        try translation.equality(translation.operand(lhs), translation.operand(rhs), negated: false, self)
    }
}

extension PredicateExpressions.NotEqual: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        try translation.equality(translation.operand(lhs), translation.operand(rhs), negated: true, self)
    }
}

extension PredicateExpressions.Comparison: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        let symbol: String
        switch op {
        case .lessThan: symbol = "<"
        case .lessThanOrEqual: symbol = "<="
        case .greaterThan: symbol = ">"
        case .greaterThanOrEqual: symbol = ">="
        }
        return try translation.ordering(translation.operand(lhs), symbol, translation.operand(rhs), self)
    }
}

// MARK: - Arithmetic

extension PredicateExpressions.Arithmetic: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        let symbol: String
        switch op {
        case .add: symbol = "+"
        case .subtract: symbol = "-"
        case .multiply: symbol = "*"
        }
        return try translation.arithmetic(translation.operand(lhs), symbol, translation.operand(rhs), self)
    }
}

extension PredicateExpressions.IntDivision: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        // SQLite's integer division truncates toward zero, like Swift's.
        try translation.arithmetic(translation.operand(lhs), "/", translation.operand(rhs), self)
    }
}

extension PredicateExpressions.IntRemainder: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        // SQLite's % takes the sign of the dividend, like Swift's.
        try translation.arithmetic(translation.operand(lhs), "%", translation.operand(rhs), self)
    }
}

extension PredicateExpressions.FloatDivision: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        try translation.arithmetic(translation.operand(lhs), "/", translation.operand(rhs), self)
    }
}

extension PredicateExpressions.UnaryMinus: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        let value = try translation.operand(wrapped)
        guard case .scalar(let type) = value.kind, [.int, .int64, .double].contains(type) else {
            throw PredicateTranslationError.unsupported(self, "SQLite negates only integers and Doubles exactly")
        }
        return SQLOperand(sql("(- \(value.fragment))"), value.kind, isNullable: value.isNullable)
    }
}

// MARK: - Rules shared by the nodes

extension PredicateTranslation {
    /// The scalar type two operands share, allowing one of them to be `nil`.
    func scalarKind(_ a: SQLOperand, _ b: SQLOperand) -> SQLOperand.Kind? {
        switch (a.kind, b.kind) {
        case (.scalar, _): return a.kind
        case (.null, .scalar): return b.kind
        default: return nil
        }
    }

    /// `==` / `!=` with Swift's semantics: nil equals nil, and a nil differs from every value.
    func equality(_ lhs: SQLOperand, _ rhs: SQLOperand, negated: Bool, _ node: Any) throws -> SQLOperand {
        for side in [lhs, rhs] {
            switch side.kind {
            case .scalar, .null, .row: continue
            case .toMany, .list, .range:
                throw PredicateTranslationError.unsupported(node, "SQL compares single values; "
                    + "test collections with count, isEmpty, contains or contains(where:)")
            }
        }
        if case .null = lhs.kind, case .null = rhs.kind {
            return .boolean(SQLFragment(negated ? dialect.falseLiteral : dialect.trueLiteral))
        }
        if case .null = rhs.kind { return .boolean(sql("(\(lhs.fragment) \(raw: negated ? "IS NOT" : "IS") NULL)")) }
        if case .null = lhs.kind { return .boolean(sql("(\(rhs.fragment) \(raw: negated ? "IS NOT" : "IS") NULL)")) }
        if !negated, let test = Self.presentAndTrue(lhs, rhs) ?? Self.presentAndTrue(rhs, lhs) { return test }
        // `=` on NULL yields NULL; null-safe equality (SQLite's `IS`) is needed only when one
        // side can be nil (plain `=` keeps index use for the common case).
        let nullSafe = lhs.isNullable || rhs.isNullable
        let op = nullSafe ? dialect.nullSafeEquality(negated: negated) : (negated ? "!=" : "=")
        return .boolean(sql("(\(lhs.fragment) \(raw: op) \(rhs.fragment))"))
    }

    /// `optional?.test() == true` as `optional IS NOT NULL AND test`: the same rows as the
    /// `CASE` form, in a shape SQL can plan with indexes (the test's own, or a substring
    /// index's). Nil unless `value` is such a `flatMap` and `constant` a captured `true`.
    /// A substring lookup stays one, its test requiring the optional, so `||` can merge it.
    private static func presentAndTrue(_ value: SQLOperand, _ constant: SQLOperand) -> SQLOperand? {
        guard let (optional, condition, lookup) = value.whenPresent, constant.fragment.sql == "?",
              constant.fragment.bindings == [.bool(true)] else { return nil }
        if let lookup, let operand = SQLOperand.boolean(lookup.requiring(optional)) { return operand }
        return .boolean(sql("(\(optional) IS NOT NULL AND \(condition))"))
    }

    /// `<`, `<=`, `>`, `>=` on two values of one type.
    func ordering(_ lhs: SQLOperand, _ symbol: String, _ rhs: SQLOperand, _ node: Any) throws -> SQLOperand {
        let left = try orderable(lhs, node), right = try orderable(rhs, node)
        let comparison = sql("(\(left) \(raw: symbol) \(right))")
        // Only a force-unwrapped nil gets here as NULL (Swift's evaluation throws then).
        return lhs.isNullable || rhs.isNullable ? .boolean(dialect.nullAsFalse(comparison)) : .boolean(comparison)
    }

    /// A value in a form whose SQL ordering is Swift's: in SQLite, Decimals are stored as
    /// text, which orders "10" before "9" (see ``SQLDialect/orderedAsNumber(decimal:)``).
    private func orderable(_ operand: SQLOperand, _ node: Any) throws -> SQLFragment {
        guard case .scalar(let type) = operand.kind, type != .bool, type != .data else {
            throw PredicateTranslationError.unsupported(node, "SQL orders only numbers, strings, dates, "
                + "decimals and UUIDs")
        }
        return type == .decimal ? dialect.orderedAsNumber(decimal: operand.fragment) : operand.fragment
    }

    func arithmetic(_ lhs: SQLOperand, _ symbol: String, _ rhs: SQLOperand, _ node: Any) throws -> SQLOperand {
        guard let kind = scalarKind(lhs, rhs), case .scalar(let type) = kind,
              [.int, .int64, .double].contains(type) else {
            // Decimal arithmetic in SQLite would be binary floating point: 0.1 + 0.2 != 0.3.
            throw PredicateTranslationError.unsupported(node, "SQLite computes exactly only with "
                + "integers and Doubles, not Decimal; compare the stored value instead")
        }
        return SQLOperand(sql("(\(lhs.fragment) \(raw: symbol) \(rhs.fragment))"), kind,
                          isNullable: lhs.isNullable || rhs.isNullable)
    }
}
