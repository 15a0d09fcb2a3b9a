import CSQLite
import Foundation

/// What a stage checks once its tables have the new version's shape: the indexes are the
/// new version's (a new uniqueness constraint fails on the first duplicate it meets), strings
/// fit lowered length limits, and a custom stage filled the new required relationships.
struct StageChecks {
    let db: SQLiteConnection
    let change: StageChange
    let to: ManagedObjectModel
    let stage: String

    func run() throws {
        try synchronizeIndexes()
        for entity in change.entities {
            for check in entity.lengthChecks { try checkLength(of: check.attribute, in: entity.newName, maximum: check.maximum) }
            for relationship in entity.requiredToOne { try checkFilled(relationship, in: entity.newName) }
        }
    }

    /// Makes the indexes on entity and join tables exactly those of the new version: an
    /// index whose name or definition changed (a renamed table or column, a new uniqueness
    /// constraint) is dropped and created again; unchanged ones are left alone.
    private func synchronizeIndexes() throws {
        var wanted: [String: String] = [:]
        var owners: [String: EntityDescription] = [:]
        for entity in to.entities {
            for index in SQLSchema.indexes(of: entity) {
                wanted[index.name] = index.sql
                owners[index.name] = entity
            }
            for relationship in entity.relationships where relationship.isToMany {
                guard case .joinTable(let join, "\"a\"", _) = SQLSchema.mapping(of: relationship, in: entity, model: to) else { continue }
                let index = SQLSchema.joinTableIndexName(join)
                wanted[String(index.dropFirst().dropLast())] = "CREATE INDEX \(index) ON \(join)(\"b\")"
            }
        }
        var existing: [String: String] = [:]
        let list = try db.uncachedStatement(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND substr(name, 1, 4) <> '_og_'")
        while try list.step() {
            if let name = list.string(at: 0), let sql = list.string(at: 1) { existing[name] = sql }
        }
        list.reset()
        for (name, sql) in existing where wanted[name] != sql { try db.execute("DROP INDEX \(SQLSchema.quote(name))") }
        for (name, sql) in wanted.sorted(by: { $0.key < $1.key }) where existing[name] != sql {
            do {
                try db.execute(sql)
            } catch let error as StoreError where SQLiteResultCode.primary(error.resultCode ?? 0) == SQLITE_CONSTRAINT {
                guard let entity = owners[name] else { throw error }
                throw try duplicateFailure(in: entity, index: name) ?? error
            }
        }
    }

    /// The first pair of rows that share the values of the uniqueness constraint `index`.
    private func duplicateFailure(in entity: EntityDescription, index: String) throws -> MigrationError? {
        guard let number = Int(index.split(separator: "_").last ?? ""), number < entity.uniquenessConstraints.count else { return nil }
        let columns = entity.uniquenessConstraints[number]
        let quoted = columns.map(SQLSchema.quote)
        // Nil values never clash, as with the index itself.
        let statement = try db.uncachedStatement("""
            SELECT MIN(_pk), MAX(_pk), \(quoted[0]) FROM \(SQLSchema.table(entity))
            WHERE \(quoted.map { "\($0) IS NOT NULL" }.joined(separator: " AND "))
            GROUP BY \(quoted.joined(separator: ", ")) HAVING COUNT(*) > 1 ORDER BY MIN(_pk) LIMIT 1
            """)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        let type = entity.attribute(named: columns[0])?.type ?? .string
        return MigrationError.stageFailed(MigrationFailure(
            stage: stage, entity: entity.name, primaryKey: statement.int(at: 1), property: columns.joined(separator: ", "),
            value: InspectedValue(statement.value(at: 2, as: type)), reason: .duplicate(of: statement.int(at: 0))))
    }

    /// SQLite's `length` counts Unicode scalars, never fewer than Swift's characters: it
    /// finds the candidates, Swift decides.
    private func checkLength(of attribute: String, in entity: String, maximum: Int) throws {
        let column = SQLSchema.quote(attribute)
        let statement = try db.uncachedStatement(
            "SELECT _pk, \(column) FROM \(SQLSchema.quote(entity)) WHERE length(\(column)) > ? ORDER BY _pk")
        defer { statement.reset() }
        statement.bind(.int(Int64(maximum)), at: 1)
        while try statement.step() {
            guard let text = statement.string(at: 1), text.count > maximum else { continue }
            throw MigrationError.stageFailed(MigrationFailure(
                stage: stage, entity: entity, primaryKey: statement.int(at: 0), property: attribute,
                value: .string(text), reason: .tooLong(maximum: maximum)))
        }
    }

    private func checkFilled(_ relationship: String, in entity: String) throws {
        let statement = try db.uncachedStatement(
            "SELECT _pk FROM \(SQLSchema.quote(entity)) WHERE \(SQLSchema.quote(relationship)) IS NULL ORDER BY _pk LIMIT 1")
        defer { statement.reset() }
        if try statement.step() {
            throw MigrationError.stageFailed(MigrationFailure(
                stage: stage, entity: entity, primaryKey: statement.int(at: 0), property: relationship,
                value: .null, reason: .missingRelationship))
        }
    }
}
