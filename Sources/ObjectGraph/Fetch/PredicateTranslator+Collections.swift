import Foundation

// Key-path navigation (attributes, to-one and to-many relationships), strings, captured lists
// and ranges, and the to-many operations (count, isEmpty, contains(where:), allSatisfy, filter).

// MARK: - Strings and sequences

extension PredicateExpressions.CollectionContainsCollection: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        // A position test, not LIKE: LIKE folds ASCII case and needs % and _ escaped; Swift's
        // contains is case-sensitive.
        let (text, part) = try translation.searchable(translation.operand(base), translation.operand(other), self)
        return .boolean(translation.dialect.contains(text, part))
    }
}

extension PredicateExpressions.SequenceStartsWith: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        // substr and length count characters for TEXT and bytes for BLOB, so this one form
        // serves String and Data; an empty prefix matches, as in Swift.
        let (text, prefix) = try translation.searchable(translation.operand(base), translation.operand(self.prefix), self)
        return .boolean(sql("(substr(\(text), 1, length(\(prefix))) = \(prefix))"))
    }
}

extension PredicateExpressions.StringLocalizedStandardContains: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        // SQLite's lower() folds ASCII only: non-ASCII case and diacritics still differ, where
        // Swift ignores them (see PredicateTranslator's notes).
        let textOperand = try translation.operand(root), partOperand = try translation.operand(other)
        let (text, part) = try translation.searchable(textOperand, partOperand, self)
        let scan = translation.dialect.containsIgnoringCase(text, part)
        guard let lookup = translation.substringIndexLookup(textOperand, partOperand, test: scan),
              let operand = SQLOperand.boolean(lookup) else { return .boolean(scan) }
        return operand
    }
}

extension PredicateExpressions.SequenceContains: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        let container = try translation.operand(sequence)
        let member = try translation.operand(element)
        switch container.kind {
        case .list(let values):
            return try translation.membership(member, in: values, self)
        default:
            throw PredicateTranslationError.unsupported(self, "SQL tests membership only in a captured "
                + "array or set of values; for a to-many relationship use contains(where:)")
        }
    }
}

extension PredicateExpressions.RangeExpressionContains: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        let bounds = try translation.operand(range)
        guard case .range(let lower, let upper, let isClosed) = bounds.kind else {
            throw PredicateTranslationError.unsupported(self, "only a ClosedRange or Range can be tested in SQL")
        }
        let value = try translation.operand(element)
        let low = try translation.condition(translation.ordering(lower, "<=", value, self))
        let high = try translation.condition(translation.ordering(value, isClosed ? "<=" : "<", upper, self))
        return .boolean(sql("(\(low) AND \(high))"))
    }
}

extension PredicateExpressions.ClosedRange: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        SQLOperand(SQLFragment(""), .range(lower: try translation.operand(lower),
                                          upper: try translation.operand(upper), isClosed: true),
                   isNullable: false)
    }
}

extension PredicateExpressions.Range: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        SQLOperand(SQLFragment(""), .range(lower: try translation.operand(lower),
                                          upper: try translation.operand(upper), isClosed: false),
                   isNullable: false)
    }
}

// MARK: - To-many relationships

extension PredicateExpressions.SequenceContainsWhere: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        let members = try translation.toMany(translation.operand(sequence), self)
        let alias = translation.makeAlias()
        let test = try translation.memberCondition(test, variable: variable.key, members: members, alias: alias)
        let source = try translation.memberSource(members, alias: alias, extra: test)
        return .boolean(sql("EXISTS (SELECT 1 \(source))"))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        // All members satisfy the test when no member fails it (true for no members, as in Swift).
        let members = try translation.toMany(translation.operand(sequence), self)
        let alias = translation.makeAlias()
        let test = try translation.memberCondition(test, variable: variable.key, members: members, alias: alias)
        let source = try translation.memberSource(members, alias: alias, extra: sql("(NOT \(test))"))
        return .boolean(sql("NOT EXISTS (SELECT 1 \(source))"))
    }
}

extension PredicateExpressions.Filter: SQLTranslatableExpression {
    func sqlOperand(in translation: PredicateTranslation) throws -> SQLOperand {
        var members = try translation.toMany(translation.operand(sequence), self)
        // Translated when the member alias is known: by count, isEmpty or contains(where:).
        let variable = self.variable.key, filter = self.filter
        let entity = members.entity
        members.filters.append { alias in
            try translation.withVariable(variable, boundTo: SQLOperand(row: entity, .alias(alias), isNullable: false)) {
                try translation.condition(translation.operand(filter))
            }
        }
        return SQLOperand(SQLFragment(""), .toMany(members), isNullable: false)
    }
}

// MARK: - Navigation and shared rules

extension PredicateTranslation {
    /// The value of `keyPath` (one property) applied to `base`.
    func member(_ keyPath: AnyKeyPath, of base: SQLOperand, baseType: Any.Type, isOptional: Bool) throws -> SQLOperand {
        // Only errors name the key path: making the name runs a regex over its description,
        // which every member of every translated predicate would otherwise pay.
        var name: String { PredicateTranslationError.keyPathName(keyPath) }
        switch base.kind {
        case .row(let entity, let reference):
            guard let steps = schema.resolve(keyPath, from: entity), !steps.isEmpty else {
                throw PredicateTranslationError.unknownKeyPath(keyPath: name, entity: entity)
            }
            var current = base
            var currentReference = reference
            for (index, step) in steps.enumerated() {
                let isLast = index == steps.count - 1
                current = try follow(step, from: currentReference, owner: current,
                                     isOptional: isLast ? isOptional : true, keyPath: keyPath)
                if !isLast {
                    guard case .row(_, let next) = current.kind else {
                        throw PredicateTranslationError.unknownKeyPath(keyPath: name, entity: entity)
                    }
                    currentReference = next
                }
            }
            return current
        case .toMany(let members):
            let keyPaths = Self.collectionKeyPaths(of: baseType)
            if keyPaths.contains(where: { $0.count == keyPath }) {
                let source = try memberSource(members, alias: makeAlias(), extra: nil)
                return SQLOperand(sql("(SELECT COUNT(*) \(source))"), .scalar(.int), isNullable: false)
            }
            if keyPaths.contains(where: { $0.isEmpty == keyPath }) {
                let source = try memberSource(members, alias: makeAlias(), extra: nil)
                return .boolean(sql("NOT EXISTS (SELECT 1 \(source))"))
            }
        case .scalar(let type):
            if Self.isRawValueKeyPath(keyPath, of: baseType) {
                return base  // enumerations are stored as their raw value
            }
            let keyPaths = Self.collectionKeyPaths(of: baseType)
            let isCount = keyPaths.contains { $0.count == keyPath }
            if keyPaths.contains(where: { $0.isEmpty == keyPath }), type == .string || type == .data {
                return .boolean(sql("(length(\(base.fragment)) = 0)"))
            }
            if isCount, type == .data {
                return SQLOperand(sql("length(\(base.fragment))"), .scalar(.int), isNullable: base.isNullable)
            }
            if isCount, type == .string {
                throw PredicateTranslationError.unsupportedExpression(description: "\(name) is not "
                    + "translatable to SQL: SQLite counts code points, Swift counts characters "
                    + "(\"👍🏽\".count is 1); compare the string itself or filter in memory.")
            }
        case .null, .list, .range:
            break
        }
        throw PredicateTranslationError.unsupportedExpression(description: "The key path \(name) is "
            + "not translatable to SQL; only stored properties, a to-many relationship's count and "
            + "isEmpty, String and Data isEmpty, Data count, and the rawValue of a CaseIterable enum are.")
    }

    /// One stored property of the row `reference` points to.
    private func follow(_ step: ResolvedStep, from reference: SQLOperand.RowReference, owner: SQLOperand,
                        isOptional: Bool, keyPath: AnyKeyPath) throws -> SQLOperand {
        if case .toMany(let destination, let mapping) = step.kind {
            // No column: the members are found from the owner's key (see memberSource).
            return SQLOperand(SQLFragment(""), .toMany(SQLOperand.ToMany(
                owner: owner.fragment, entity: destination, mapping: mapping, filters: [])), isNullable: false)
        }
        let column: SQLFragment
        let throughKey: Bool
        switch reference {
        case .alias(let alias):
            column = SQLFragment("\(raw: alias).\(raw: step.column)")
            throughKey = false
        case .key(let key):
            let alias = makeAlias()
            let pk = SQLSchema.primaryKeyColumn
            column = sql("""
                (SELECT \(raw: alias).\(raw: step.column) FROM \(raw: step.table) \(raw: alias) \
                WHERE \(raw: alias).\(raw: pk) = \(key))
                """)
            throughKey = true
        }
        var result: SQLOperand
        switch step.kind {
        case .attribute(let type):
            result = SQLOperand(column, .scalar(type), isNullable: isOptional || owner.isNullable)
            let rowKey: SQLFragment = switch reference {
            case .alias(let alias): SQLFragment("\(raw: alias).\(raw: SQLSchema.primaryKeyColumn)")
            case .key(let key): key
            }
            result.column = (step.entity, step.column, rowKey)
        case .toOne(let destination):
            result = SQLOperand(row: destination, .key(column), isNullable: true)
        case .toMany:
            throw PredicateTranslationError.unknownKeyPath(keyPath: PredicateTranslationError.keyPathName(keyPath),
                                                           entity: step.entity)
        }
        result.propagatesNull = throughKey && owner.propagatesNull
        return result
    }

    /// `FROM … WHERE …` listing the members of `members` as `alias`, with `extra` and the
    /// relationship's filters as further conditions.
    func memberSource(_ members: SQLOperand.ToMany, alias: String, extra: SQLFragment?) throws -> SQLFragment {
        let pk = SQLSchema.primaryKeyColumn
        var source: SQLFragment
        switch members.mapping {
        case .inverseForeignKey(let table, let column):
            source = sql("FROM \(raw: table) \(raw: alias) WHERE \(raw: alias).\(raw: column) = \(members.owner)")
        case .joinTable(let table, let ownerColumn, let memberColumn):
            let link = makeAlias()
            let destination = SQLSchema.quote(members.entity)
            source = sql("""
                FROM \(raw: table) \(raw: link) \
                JOIN \(raw: destination) \(raw: alias) ON \(raw: alias).\(raw: pk) = \(raw: link).\(raw: memberColumn) \
                WHERE \(raw: link).\(raw: ownerColumn) = \(members.owner)
                """)
        case .foreignKey:
            throw PredicateTranslationError.unsupportedExpression(description: "The schema describes the "
                + "to-many relationship to \(members.entity) with a foreign key, which only a to-one "
                + "relationship has; check the model's inverse relationships.")
        }
        for filter in members.filters {
            let condition = try filter(alias)
            source = sql("\(source) AND \(condition)")
        }
        if let extra { source = sql("\(source) AND \(extra)") }
        return source
    }

    /// The closure of `contains(where:)` / `allSatisfy` with its variable bound to the member row.
    func memberCondition(_ test: Any, variable: PredicateExpressions.VariableID, members: SQLOperand.ToMany,
                         alias: String) throws -> SQLFragment {
        try withVariable(variable, boundTo: SQLOperand(row: members.entity, .alias(alias), isNullable: false)) {
            try condition(operand(test))
        }
    }

    func toMany(_ operand: SQLOperand, _ node: Any) throws -> SQLOperand.ToMany {
        guard case .toMany(let members) = operand.kind else {
            throw PredicateTranslationError.unsupported(node, "in SQL it applies only to a to-many relationship")
        }
        return members
    }

    /// The two sides of a substring test: both text or both bytes.
    func searchable(_ text: SQLOperand, _ part: SQLOperand, _ node: Any) throws -> (SQLFragment, SQLFragment) {
        guard case .scalar(let a) = text.kind, case .scalar(let b) = part.kind,
              (a == .string && b == .string) || (a == .data && b == .data) else {
            throw PredicateTranslationError.unsupported(node, "SQL searches only in strings and Data")
        }
        return (text.fragment, part.fragment)
    }

    /// `value IN (…)` with Swift's semantics for nil: a nil value is in the list if the list has
    /// a nil, and never NULL (so `!list.contains(x)` holds for a nil `x` that is not listed).
    func membership(_ value: SQLOperand, in values: [StoredValue], _ node: Any) throws -> SQLOperand {
        switch value.kind {
        case .scalar, .null: break
        default: throw PredicateTranslationError.unsupported(node, "SQL tests membership only of single values")
        }
        let present = values.filter { !$0.isNull }
        var tests: [SQLFragment] = []
        if !present.isEmpty {
            let test = sql("\(value.fragment) IN (\(values: present))")
            tests.append(value.isNullable ? dialect.nullAsFalse(test) : test)
        }
        if present.count < values.count {
            tests.append(sql("\(value.fragment) IS NULL"))
        }
        guard var result = tests.first else { return .boolean(SQLFragment(dialect.falseLiteral)) }
        for test in tests.dropFirst() { result = sql("\(result) OR \(test)") }
        return .boolean(sql("(\(result))"))
    }

    // MARK: Key paths of collections and enums

    /// The key paths of `count` and `isEmpty` on `type`. Key paths to computed properties are
    /// equal only when they name the same declaration: `\Set<Invoice>.count` written at the
    /// predicate names `Set.count`, while `\C.count` written generically names the requirement
    /// `Collection.count`. So the concrete forms come from the types' own extensions below, and
    /// the generic forms are kept for predicates written in generic code.
    static func collectionKeyPaths(of type: Any.Type) -> [(count: AnyKeyPath, isEmpty: AnyKeyPath)] {
        var paths: [(count: AnyKeyPath, isEmpty: AnyKeyPath)] = []
        if let concrete = type as? any PredicateCollectionKeyPaths.Type {
            paths.append((concrete.predicateCountKeyPath, concrete.predicateIsEmptyKeyPath))
        }
        if let collection = type as? any Collection.Type {
            paths.append(genericCollectionKeyPaths(collection))
        }
        return paths
    }

    private static func genericCollectionKeyPaths<C: Collection>(_: C.Type) -> (count: AnyKeyPath, isEmpty: AnyKeyPath) {
        (\C.count, \C.isEmpty)
    }

    /// Whether `keyPath` is `rawValue` of the enumeration `type`. The enumeration's own
    /// `rawValue` cannot be named generically (see above), so the key path is tried on every
    /// case instead: one that gives each case's raw value selects what `rawValue` would.
    static func isRawValueKeyPath(_ keyPath: AnyKeyPath, of type: Any.Type) -> Bool {
        guard let enumeration = type as? any (RawRepresentable & CaseIterable).Type else { return false }
        return isRawValueKeyPath(keyPath, enumeration)
    }

    private static func isRawValueKeyPath<E: RawRepresentable & CaseIterable>(_ keyPath: AnyKeyPath, _: E.Type) -> Bool {
        guard let typed = keyPath as? KeyPath<E, E.RawValue> else { return false }
        let cases = Array(E.allCases)
        return !cases.isEmpty && cases.allSatisfy { value in
            guard let viaKeyPath = value[keyPath: typed] as? AnyHashable,
                  let raw = value.rawValue as? AnyHashable else { return false }
            return viaKeyPath == raw
        }
    }
}

/// Collections whose `count` and `isEmpty` a predicate can test in SQL: to-many relationships
/// (Set, or Array from `filter`), and String and Data attributes. A to-many relationship of
/// another collection type needs a conformance too.
protocol PredicateCollectionKeyPaths {
    static var predicateCountKeyPath: AnyKeyPath { get }
    static var predicateIsEmptyKeyPath: AnyKeyPath { get }
}

extension Set: PredicateCollectionKeyPaths {
    static var predicateCountKeyPath: AnyKeyPath { \Set.count }
    static var predicateIsEmptyKeyPath: AnyKeyPath { \Set.isEmpty }
}

extension Array: PredicateCollectionKeyPaths {
    static var predicateCountKeyPath: AnyKeyPath { \Array.count }
    static var predicateIsEmptyKeyPath: AnyKeyPath { \Array.isEmpty }
}

extension String: PredicateCollectionKeyPaths {
    static var predicateCountKeyPath: AnyKeyPath { \String.count }
    static var predicateIsEmptyKeyPath: AnyKeyPath { \String.isEmpty }
}

extension Data: PredicateCollectionKeyPaths {
    static var predicateCountKeyPath: AnyKeyPath { \Data.count }
    static var predicateIsEmptyKeyPath: AnyKeyPath { \Data.isEmpty }
}
