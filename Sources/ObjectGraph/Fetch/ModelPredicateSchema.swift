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

    /// The SQL expression of a sort key: a column of t0, or a correlated subquery through
    /// to-one relationships.
    func sortExpression(_ keyPath: AnyKeyPath, from entityName: String) -> String? {
        guard let steps = resolve(keyPath, from: entityName), let last = steps.last,
              case .attribute(let type) = last.kind else { return nil }
        func column(_ alias: String) -> String {
            type == .decimal ? "CAST(\(alias).\(last.column) AS REAL)" : "\(alias).\(last.column)"
        }
        if steps.count == 1 { return column("t0") }
        // One hop through a to-one relationship: a correlated subquery. Longer chains are
        // sorted in memory by the caller.
        guard steps.count == 2, case .toOne(let destination) = steps[0].kind,
              let dest = model.entity(named: destination) else { return nil }
        return "(SELECT \(column("s1")) FROM \(SQLSchema.table(dest)) s1 WHERE s1._pk = t0.\(steps[0].column))"
    }
}
