import Foundation

/// An aggregate request translated for the store: the attributes to read (each once), the
/// joins that reach attributes through to-one relationships, and the condition.
///
/// The store reads those columns for the matching rows and ``GroupTable`` groups and adds
/// them up; unsaved objects go through the same table.
package struct AggregatePlan {
    /// An attribute the request reads: a group key or an aggregated attribute.
    package struct Column {
        let keyPath: AnyKeyPath
        package let type: AttributeType
        /// The properties the key path reads, for reading unsaved objects.
        let path: [PropertyStep]
        /// Its SQL expression: `t0."currency"`, or `j1."country"` through a join.
        let expression: String
    }

    /// An aggregate, with the column it reads (nil for `count`).
    struct Term {
        let function: AggregateTerm.Function
        let column: Int?
        let type: AttributeType?
        /// The key path, for messages.
        let name: String
    }

    let entity: EntityDescription
    /// The dialect of the store the plan's SQL is for.
    let dialect: SQLDialect
    package let condition: SQLFragment?
    package let columns: [Column]
    /// The column of each group key, in order.
    let keyColumns: [Int]
    let terms: [Term]
    /// `LEFT JOIN "Client" j1 ON j1._pk = t0."client"`, one per to-one relationship followed.
    let joins: [String]
    /// Whether the request reads other entities' rows (joins, or subqueries in the
    /// condition): their unsaved changes then matter too.
    var crossesRelationships: Bool { !joins.isEmpty || (condition?.sql.contains("SELECT") ?? false) }

    init<Root, Row>(_ request: AggregateRequest<Root, Row>, model: ManagedObjectModel, dialect: SQLDialect) throws {
        guard let entity = model.entity(for: Root.self) else { throw AggregateError.unknownEntity(String(describing: Root.self)) }
        self.entity = entity
        self.dialect = dialect
        let schema = ModelPredicateSchema(model: model)
        if let predicate = request.predicate {
            do {
                condition = try PredicateTranslator(schema: schema, rootEntity: entity.name, dialect: dialect)
                    .translate(predicate)
            } catch {
                throw AggregateError.untranslatablePredicate("\(error)")
            }
        } else {
            condition = nil
        }
        var builder = ColumnBuilder(entity: entity, model: model, schema: schema)
        keyColumns = try request.groupKeys.map { try builder.column(for: $0).index }
        terms = try request.terms.map { term in
            guard let keyPath = term.keyPath else { return Term(function: term.function, column: nil, type: nil, name: "") }
            let (index, type) = try builder.column(for: keyPath)
            let name = builder.displayName(keyPath)
            guard Self.accepts(term.function, type) else {
                throw AggregateError.unsupportedFunction(term.function.rawValue, keyPath: name, type: type)
            }
            return Term(function: term.function, column: index, type: type, name: name)
        }
        columns = builder.columns
        joins = builder.joins
    }

    private static func accepts(_ function: AggregateTerm.Function, _ type: AttributeType) -> Bool {
        switch function {
        case .count, .countValues: return true
        case .sum, .average: return [.int, .int64, .double, .decimal].contains(type)
        case .minimum, .maximum: return [.int, .int64, .double, .decimal, .date, .string].contains(type)
        }
    }

    /// `SELECT <columns> FROM <table> t0 <joins> WHERE <condition>`; with `excludingKeys`, a
    /// last condition leaves out the rows whose keys a JSON array bound after the
    /// condition's parameters lists (the rows unsaved changes replace).
    package func sql(excludingKeys: Bool) -> String {
        let select = columns.isEmpty ? "1" : columns.map(\.expression).joined(separator: ", ")
        var conditions = condition.map { ["(\($0.sql))"] } ?? []
        if excludingKeys { conditions.append(dialect.excludesKeys("t0._pk")) }
        return "SELECT \(select) FROM \(SQLSchema.table(entity)) t0"
            + joins.map { " " + $0 }.joined()
            + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
    }
}

/// Resolves key paths to columns, each attribute once, and the joins they need.
private struct ColumnBuilder {
    let entity: EntityDescription
    let model: ManagedObjectModel
    let schema: ModelPredicateSchema
    var columns: [AggregatePlan.Column] = []
    var joins: [String] = []
    private var columnByExpression: [String: Int] = [:]
    /// The alias of each chain of to-one relationships already joined.
    private var aliasByChain: [String: String] = [:]

    init(entity: EntityDescription, model: ManagedObjectModel, schema: ModelPredicateSchema) {
        self.entity = entity
        self.model = model
        self.schema = schema
    }

    mutating func column(for keyPath: AnyKeyPath) throws -> (index: Int, type: AttributeType) {
        guard let steps = schema.resolve(keyPath, from: entity.name) else {
            throw AggregateError.notAStoredAttribute(keyPath: displayName(keyPath), entity: entity.name)
        }
        if let toMany = steps.firstIndex(where: { if case .toMany = $0.kind { true } else { false } }) {
            throw throughToMany(keyPath, at: toMany)
        }
        guard let last = steps.last, case .attribute(let type) = last.kind,
              let path = model.propertyPath(for: keyPath, in: entity), path.count == steps.count else {
            throw AggregateError.notAStoredAttribute(keyPath: displayName(keyPath), entity: entity.name)
        }
        var alias = PredicateTranslator.rootAlias
        var chain = ""
        for step in steps.dropLast() {
            guard case .toOne(let destination) = step.kind else { continue }
            chain += "/\(step.entity).\(step.column)"
            if let joined = aliasByChain[chain] { alias = joined; continue }
            let next = "j\(joins.count + 1)"
            joins.append("LEFT JOIN \(SQLSchema.quote(destination)) \(next) ON \(next).\(SQLSchema.primaryKeyColumn) = \(alias).\(step.column)")
            aliasByChain[chain] = next
            alias = next
        }
        let expression = "\(alias).\(last.column)"
        if let index = columnByExpression[expression] { return (index, type) }
        columns.append(AggregatePlan.Column(keyPath: keyPath, type: type, path: path, expression: expression))
        columnByExpression[expression] = columns.count - 1
        return (columns.count - 1, type)
    }

    /// A key path as a user can read it, by the names of the stored properties it reads:
    /// `\Invoice.client.city`, with `…` when it computes something from them (Swift prints
    /// every `@Attribute` as `<computed 0x55d0… (Int)>`, which tells a reader nothing).
    func displayName(_ keyPath: AnyKeyPath) -> String {
        guard let path = model.propertyPath(for: keyPath, in: entity), !path.isEmpty else {
            return PredicateTranslationError.keyPathName(keyPath)
        }
        let names = path.map { model.entity(named: $0.entityName)?.properties[safe: $0.index]?.name ?? "?" }
        let stored = "\\\(entity.name).\(names.joined(separator: "."))"
        return model.readsStoredProperty(keyPath, path: path, from: entity) ? stored : stored + "…"
    }

    /// The error for a key path whose step `index` is a to-many relationship, naming it.
    private func throughToMany(_ keyPath: AnyKeyPath, at index: Int) -> AggregateError {
        let path = model.propertyPath(for: keyPath, in: entity) ?? []
        guard index < path.count, let owner = model.entity(named: path[index].entityName),
              case .relationship(let relationship)? = owner.properties[safe: path[index].index] else {
            return .notAStoredAttribute(keyPath: displayName(keyPath), entity: entity.name)
        }
        return .throughToMany(keyPath: displayName(keyPath), relationship: "\(owner.name).\(relationship.name)",
                              destination: relationship.destinationEntityName)
    }
}
