import Foundation

/// Naming the uniqueness constraint a batch request broke, by looking its values up: never by
/// reading SQLite's message ("UNIQUE constraint failed: Client.email"), whose words are not
/// an interface and change between releases.
///
/// The look-ups run inside the batch's write transaction, right after the failing statement:
/// SQLite undid that statement only, so the rows the batch's earlier statements wrote count.
/// A unique index the model does not declare stays a store error.
extension SQLiteStore {
    /// Runs a batch insert's statement for `rows`.
    /// - Throws: ``BatchError/uniquenessViolation(entity:properties:message:)`` when it breaks a
    ///   uniqueness constraint of the model, naming the constraint.
    func uniquenessChecked(_ entity: EntityDescription, inserting rows: [(key: Int64, values: [StoredValue])],
                           in db: SQLiteConnection, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as StoreError where error.resultCode == SQLiteResultCode.constraintUnique {
            guard let group = try group(clashingWith: rows, entity: entity, in: db) else { throw error }
            throw Self.violation(entity, group, error)
        }
    }

    /// Runs a batch update's statement, which sets `values` on the rows matching `condition`.
    /// - Throws: ``BatchError/uniquenessViolation(entity:properties:message:)`` when it breaks a
    ///   uniqueness constraint of the model, naming the constraint.
    func uniquenessChecked<T>(_ entity: EntityDescription, update values: [(Int, StoredValue)], where condition: SQLFragment?,
                              in db: SQLiteConnection, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError where error.resultCode == SQLiteResultCode.constraintUnique {
            guard let group = try group(brokenBy: values, where: condition, entity: entity, in: db) else { throw error }
            throw Self.violation(entity, group, error)
        }
    }

    private static func violation(_ entity: EntityDescription, _ group: [Int], _ error: StoreError) -> BatchError {
        .uniquenessViolation(entity: entity.name, properties: group.map { entity.properties[$0].name },
                             message: error.description)
    }

    /// The first constraint (property indices) whose values two of `rows` share, or one of them
    /// shares with a row of the table.
    private func group(clashingWith rows: [(key: Int64, values: [StoredValue])], entity: EntityDescription,
                       in db: SQLiteConnection) throws -> [Int]? {
        for group in entity.uniquenessIndices {
            var seen = Set<[StoredValue]>()
            for row in rows {
                guard let condition = SQLSchema.keyCondition(group, values: row.values, entity: entity) else { continue }
                if !seen.insert(group.map { row.values[$0] }).inserted { return group }
                let statement = try db.prepared("SELECT 1 FROM \(raw: SQLSchema.table(entity)) WHERE \(condition) LIMIT 1")
                defer { statement.reset() }
                if try statement.step() { return group }
            }
        }
        return nil
    }

    /// The first constraint with a property the update sets under which two rows would hold
    /// the same values once the update applied (``BatchUniquenessStatements/clash(of:set:where:entity:)``).
    private func group(brokenBy values: [(Int, StoredValue)], where condition: SQLFragment?, entity: EntityDescription,
                       in db: SQLiteConnection) throws -> [Int]? {
        let set = Dictionary(values, uniquingKeysWith: { _, later in later })
        for group in entity.uniquenessIndices {
            guard let query = BatchUniquenessStatements.clash(of: group, set: set, where: condition, entity: entity) else { continue }
            let statement = try db.prepared(query)
            defer { statement.reset() }
            if try statement.step() { return group }
        }
        return nil
    }
}
