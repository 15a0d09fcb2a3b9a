import Foundation

/// The model's delete rules as SQL for a batch delete, the same for every store.
///
/// A store gathers the keys to delete in a table of its own (`entity`, `pk`: SQLite's
/// `temp._og_batch`, PostgreSQL's temporary `_og_batch`), grows it along cascade rules to a
/// fixed point, checks deny rules and required inverses against rows outside it, clears
/// references, removes link rows and deletes. These are the statements of each step; the
/// store runs them and reads their results its own way.
package struct BatchDeleteRules: Sendable {
    package let model: ManagedObjectModel
    /// The key table's name as the store's SQL names it.
    package let keyTable: String
    package let dialect: SQLDialect
    package let recordsHistory: Bool

    package init(model: ManagedObjectModel, keyTable: String, dialect: SQLDialect, recordsHistory: Bool) {
        self.model = model
        self.keyTable = keyTable
        self.dialect = dialect
        self.recordsHistory = recordsHistory
    }

    /// Whether deleting rows of `entity` involves other rows: cascades, denials, references
    /// to clear, link rows, or tombstones and old values to keep. When not, one `DELETE` does.
    package func needsRules(_ entity: EntityDescription) -> Bool {
        if recordsHistory && entity.attributes.contains(where: \.isPreservedInHistoryOnDeletion) { return true }
        if recordsHistory && !entity.historyValueIndices.isEmpty { return true }
        for r in entity.relationships {
            if r.isToMany || r.deleteRule == .cascade || r.deleteRule == .deny { return true }
            if let inverse = model.entity(named: r.destinationEntityName)?.relationship(named: r.inverseName),
               !inverse.isToMany { return true }
        }
        return model.entities.contains { other in
            other.relationships.contains { $0.cardinality == .orderedToMany && $0.destinationEntityName == entity.name }
        }
    }

    /// `(SELECT pk FROM <key table> WHERE entity = <e>)`.
    package func keys(of e: EntityDescription) -> SQLFragment {
        "(SELECT pk FROM \(raw: keyTable) WHERE entity = \(.string(e.name)))"
    }

    /// The statement that puts the request's rows in the (empty) key table: the rows a
    /// condition selects, or the rows with the given keys, in one statement however many
    /// there are (the keys bound as one JSON array).
    package func selection(_ selection: BatchDeleteSelection, of entity: EntityDescription) -> SQLFragment {
        let rows: SQLFragment
        switch selection {
        case .condition(let condition):
            rows = condition.map { " WHERE \($0)" } ?? ""
        case .keys(let keys):
            let list = dialect.includesKeys("t0._pk", keys)
            rows = " WHERE \(list)"
        }
        return "INSERT INTO \(raw: keyTable) (entity, pk) SELECT \(.string(entity.name)), t0._pk FROM \(raw: SQLSchema.table(entity)) t0\(rows)"
    }

    /// The statements that add the destinations of `e`'s cascade rules to the key table; a
    /// store runs them for every entity in the table until none adds a row.
    package func cascades(from e: EntityDescription) -> [SQLFragment] {
        e.relationships.filter { $0.deleteRule == .cascade }.compactMap { r in
            guard let destination = model.entity(named: r.destinationEntityName) else { return nil }
            return dialect.insertIgnoringDuplicates(into: keyTable, "(entity, pk) \(destinations(of: r, in: e, destination: destination))")
        }
    }

    /// Deny rules, and nullify rules whose inverse is a required to-one: each a query of how
    /// many rows outside the key table the rule protects, and the error when there are some.
    package func checks(for e: EntityDescription) -> [(count: SQLFragment, refusal: @Sendable (Int) -> BatchError)] {
        e.relationships.compactMap { r in
            guard let destination = model.entity(named: r.destinationEntityName) else { return nil }
            let inverse = destination.relationship(named: r.inverseName)
            let nullifiesRequired = r.deleteRule == .nullify && inverse.map { !$0.isToMany && $0.isRequired } == true
            guard r.deleteRule == .deny || nullifiesRequired else { return nil }
            let count: SQLFragment = """
                SELECT COUNT(*) FROM (\(destinations(of: r, in: e, destination: destination))) x
                WHERE x.pk NOT IN (SELECT pk FROM \(raw: keyTable) WHERE entity = x.entity)
                """
            let (entity, relationship, inverseName) = (e.name, r.name, r.inverseName)
            if r.deleteRule == .deny {
                return (count, { BatchError.deleteDenied(entity: entity, relationship: relationship, count: $0) })
            }
            let name = destination.name
            return (count, { BatchError.requiredRelationshipWouldBeEmpty(entity: name, relationship: inverseName, count: $0) })
        }
    }

    /// Foreign-key columns of other rows pointing at `e` that its delete rules clear (for
    /// rows outside the key table): (entity, quoted column, relationship name).
    package func nullifiedReferences(to e: EntityDescription) -> [(entity: EntityDescription, column: String, name: String)] {
        e.relationships.filter { $0.deleteRule != .noAction }.compactMap { r in
            guard let destination = model.entity(named: r.destinationEntityName),
                  let inverse = destination.relationship(named: r.inverseName), !inverse.isToMany else { return nil }
            return (destination, SQLSchema.quote(inverse.name), inverse.name)
        }
    }

    /// The rows of `other` outside the key table whose `column` points at a row of `e` in it.
    package func referencing(_ e: EntityDescription, from other: EntityDescription, column: String,
                             alias: String = "") -> SQLFragment {
        "\(raw: alias)\(raw: column) IN \(keys(of: e)) AND \(raw: alias)_pk NOT IN \(keys(of: other))"
    }

    /// Join-table and order-table rows of the key table's rows of `e`, on both sides.
    package func linkDeletions(of e: EntityDescription) -> [SQLFragment] {
        let batch = keys(of: e)
        var statements: [SQLFragment] = []
        for r in e.relationships where r.isToMany {
            if case .joinTable(let join, let owner, _) = SQLSchema.mapping(of: r, in: e, model: model) {
                statements.append("DELETE FROM \(raw: join) WHERE \(raw: owner) IN \(batch)")
            }
            if r.cardinality == .orderedToMany {
                statements.append("DELETE FROM \(raw: SQLSchema.orderTableName(entity: e.name, relationship: r.name)) WHERE owner IN \(batch)")
            }
        }
        // Membership in other objects' ordered relationships.
        for other in model.entities {
            for r in other.relationships where r.cardinality == .orderedToMany && r.destinationEntityName == e.name {
                statements.append("DELETE FROM \(raw: SQLSchema.orderTableName(entity: other.name, relationship: r.name)) WHERE member IN \(batch)")
            }
        }
        return statements
    }

    /// The properties of `e` whose old values history keeps for a deleted row (tombstone
    /// attributes and recorded values), by index.
    package func recordedOnDeletion(_ e: EntityDescription) -> [Int] {
        guard recordsHistory else { return [] }
        let preserved = e.attributeIndices.filter {
            if case .attribute(let a) = e.properties[$0] { return a.isPreservedInHistoryOnDeletion } else { return false }
        }
        return Array(Set(preserved + e.historyValueIndices)).sorted()
    }

    /// `SELECT <destination's name> AS entity, <destination pk> AS pk ... WHERE <source in the key table>`.
    private func destinations(of r: RelationshipDescription, in e: EntityDescription,
                              destination: EntityDescription) -> SQLFragment {
        let name = StoredValue.string(destination.name)
        let batch = keys(of: e)
        switch SQLSchema.mapping(of: r, in: e, model: model) {
        case .foreignKey(let column):
            return """
                SELECT \(name) AS entity, s.\(raw: column) AS pk FROM \(raw: SQLSchema.table(e)) s
                WHERE s._pk IN \(batch) AND s.\(raw: column) IS NOT NULL
                """
        case .inverseForeignKey(let destinationTable, let column):
            return "SELECT \(name) AS entity, d._pk AS pk FROM \(raw: destinationTable) d WHERE d.\(raw: column) IN \(batch)"
        case .joinTable(let join, let owner, let member):
            return "SELECT \(name) AS entity, j.\(raw: member) AS pk FROM \(raw: join) j WHERE j.\(raw: owner) IN \(batch)"
        }
    }
}
