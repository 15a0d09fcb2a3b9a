import ObjectGraph

/// The entities the dashboard edits, by entity name and by path: what the form routes are
/// made from (``FormRoutes``).
struct FormCatalog: Sendable {
    let tables: [FormTable]

    init(_ types: [any EditableEntity.Type], model: ManagedObjectModel) {
        tables = types.map { type in
            func table<T: EditableEntity>(_ type: T.Type) -> FormTable { FormTable(type, model: model) }
            return table(type)
        }
    }

    func table(forEntity name: String) -> FormTable? { tables.first { $0.entityName == name } }

    /// A property's label in its entity's form.
    func label(of property: String, in entity: String) -> String {
        table(forEntity: entity)?.label(of: property) ?? (property.prefix(1).uppercased() + property.dropFirst())
    }
}
