import Foundation

/// The real model as seen by predicate translation and sorting.
struct ModelPredicateSchema: PredicateSchema {
    let model: ManagedObjectModel

    func resolve(_ keyPath: AnyKeyPath, from entityName: String) -> [ResolvedStep]? {
        guard let entity = model.entity(named: entityName) else { return nil }
        guard let path = model.propertyPath(for: keyPath, in: entity) else {
            // `objectID` is the row's primary key (a captured ID binds as its key).
            guard model.isObjectIDKeyPath(keyPath, in: entity) else { return nil }
            return [ResolvedStep(entity: entity.name, table: SQLSchema.table(entity),
                                 column: SQLSchema.primaryKeyColumn, kind: .attribute(.int64))]
        }
        guard Self.isChain(path, in: model), model.readsStoredProperty(keyPath, path: path, from: entity) else {
            return nil   // a computed property: it reads stored ones, but is not one
        }
        var steps: [ResolvedStep] = []
        for step in path {
            guard let owner = model.entity(named: step.entityName), step.index < owner.properties.count else { return nil }
            let table = SQLSchema.table(owner)
            switch owner.properties[step.index] {
            case .attribute(let a):
                steps.append(ResolvedStep(entity: owner.name, table: table, column: SQLSchema.quote(a.name),
                                          kind: .attribute(a.type)))
            case .relationship(let r) where !r.isToMany:
                steps.append(ResolvedStep(entity: owner.name, table: table, column: SQLSchema.quote(r.name),
                                          kind: .toOne(destinationEntity: r.destinationEntityName)))
            case .relationship(let r):
                steps.append(ResolvedStep(entity: owner.name, table: table, column: SQLSchema.quote(r.name),
                                          kind: .toMany(destinationEntity: r.destinationEntityName,
                                                        mapping: SQLSchema.mapping(of: r, in: owner, model: model))))
            }
        }
        return steps
    }

    /// Whether the steps follow each other: every step but the last a to-one relationship
    /// whose destination owns the next step.
    private static func isChain(_ path: [PropertyStep], in model: ManagedObjectModel) -> Bool {
        for (step, next) in zip(path, path.dropFirst()) {
            guard let owner = model.entity(named: step.entityName), step.index < owner.properties.count,
                  case .relationship(let r) = owner.properties[step.index], !r.isToMany,
                  r.destinationEntityName == next.entityName else { return false }
        }
        return true
    }

    /// The SQL expression of a sort key: a column of t0, or a correlated subquery through
    /// to-one relationships.
    func sortExpression(_ keyPath: AnyKeyPath, from entityName: String, dialect: SQLDialect) -> String? {
        guard let steps = resolve(keyPath, from: entityName), let last = steps.last,
              case .attribute(let type) = last.kind else { return nil }
        func column(_ alias: String) -> String {
            let column = SQLFragment("\(raw: alias).\(raw: last.column)")
            return type == .decimal ? dialect.orderedAsNumber(decimal: column).sql : column.sql
        }
        if steps.count == 1 { return column("t0") }
        // One hop through a to-one relationship: a correlated subquery. Longer chains are
        // sorted in memory by the caller.
        guard steps.count == 2, case .toOne(let destination) = steps[0].kind,
              let dest = model.entity(named: destination) else { return nil }
        return "(SELECT \(column("s1")) FROM \(SQLSchema.table(dest)) s1 WHERE s1._pk = t0.\(steps[0].column))"
    }
}

extension ManagedObjectModel {
    /// Whether `keyPath` reads the stored attribute its path ends with, rather than a
    /// computed property over it (`var isLarge: Bool { amount > 1000 }` reads `amount` too).
    /// The key path is applied to the prototype twice, with two values of the attribute; a
    /// stored property returns each as it is. An enumeration's wrapper turns a raw value that
    /// is no case into its default, which counts as returning it too.
    func readsStoredProperty(_ keyPath: AnyKeyPath, path: [PropertyStep], from entity: EntityDescription) -> Bool {
        guard let last = path.last, let owner = self.entity(named: last.entityName),
              last.index < owner.properties.count else { return false }
        guard case .attribute(let attribute) = owner.properties[last.index] else { return true }
        for probe in attribute.type.probeValues {
            guard let result = prototypes.result(of: keyPath, on: entity.name, reading: probe, at: last) else {
                return false
            }
            if result != probe && result != attribute.defaultValue { return false }
        }
        return true
    }
}

extension AttributeType {
    /// Two distinct values no default is likely to equal, to tell a stored attribute from a
    /// computed property (``ManagedObjectModel/readsStoredProperty(_:path:from:)``).
    var probeValues: [StoredValue] {
        switch self {
        case .string: return [.string("\u{1}og-probe-a"), .string("\u{1}og-probe-b")]
        case .int, .int64: return [.int(73_461_298), .int(-2_901_337)]
        case .double: return [.double(7_346_129.831), .double(-0.000_731)]
        case .bool: return [.bool(true), .bool(false)]
        case .date: return [.date(Date(timeIntervalSince1970: 1_234_567.891)), .date(Date(timeIntervalSince1970: -86_401))]
        case .decimal: return [.decimal(Decimal(string: "73461.29831") ?? 1), .decimal(Decimal(string: "-0.007") ?? 2)]
        case .uuid:
            return [UUID(uuidString: "0B5E5A9C-8F1D-4C1A-9E52-6F0D2C9A1B01"), UUID(uuidString: "7D2A1C3E-0000-4000-8000-0000000000FF")]
                .compactMap { $0 }.map { .uuid($0) }
        case .data: return [.data(Data([0x6f, 0x67, 0x01])), .data(Data([0x02]))]
        }
    }
}
