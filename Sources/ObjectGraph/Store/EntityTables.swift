/// A store's ``EntityTable``s, one per entity of its model, found by the entity's number in
/// this process: every fault, fetch and written row asks for its table, and hashing the
/// entity's name for it cost more than the look-up of the row's object.
package struct EntityTables: Sendable {
    /// By `EntityDescription.code`; nil where the number is another model's entity.
    private let byCode: [EntityTable?]
    /// The same tables by entity name.
    package let byName: [String: EntityTable]

    package init(model: ManagedObjectModel) {
        var byCode = [EntityTable?](repeating: nil, count: Int(model.entities.map(\.code).max() ?? 0) + 1)
        var byName: [String: EntityTable] = [:]
        for entity in model.entities {
            let table = EntityTable(entity: entity)
            byCode[Int(entity.code)] = table
            byName[entity.name] = table
        }
        self.byCode = byCode
        self.byName = byName
    }

    /// The table of `entity`; one made on the spot for an entity of no model this store has
    /// (numbers are names interned for the process: the same name has the same number).
    package func table(for entity: EntityDescription) -> EntityTable {
        let code = Int(entity.code)
        if code < byCode.count, let table = byCode[code] { return table }
        return EntityTable(entity: entity)
    }
}
