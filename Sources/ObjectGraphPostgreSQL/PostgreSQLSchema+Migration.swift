import Foundation
import ObjectGraph

/// Carrying out an ``AdditiveMigration`` in PostgreSQL's SQL, and keeping the declared indexes
/// in step, inside the transaction (and under the advisory lock) that opens the store. DDL is
/// transactional in PostgreSQL: a failure anywhere rolls back every step, and the database is
/// as it was.
extension PostgreSQLSchema {
    func apply(_ migration: AdditiveMigration, in db: PostgreSQLConnection) throws {
        for step in migration.steps {
            switch step {
            case .createEntity(let entity, let model):
                try createTable(entity, of: model, in: db)
            case .addColumn(let entity, let name, let type):
                // Without a default: PostgreSQL adds a nullable column without rewriting the table.
                try db.execute("ALTER TABLE \(SQLSchema.table(entity)) ADD COLUMN \(SQLDialect.quote(name)) \(type.map(Self.columnType) ?? "bigint")")
            case .fillNulls(let entity, let column, let value):
                let quoted = SQLDialect.quote(column)
                try db.run("UPDATE \(raw: SQLSchema.table(entity)) SET \(raw: quoted) = \(value) WHERE \(raw: quoted) IS NULL")
            case .createRelationshipTable(let name, let isJoinTable):
                if isJoinTable { try createJoinTable(SQLDialect.quote(name), in: db) }
                else { try createOrderTable(SQLDialect.quote(name), in: db) }
            case .replaceUniqueIndexes(let entity, let droppedCount, let stage):
                try replaceUniqueIndexes(of: entity, droppedCount: droppedCount, stage: stage, in: db)
            case .checkLength(let entity, let attribute, let maximum, let stage):
                try checkLength(of: attribute, in: entity, maximum: maximum, stage: stage, in: db)
            }
        }
    }

    /// Makes the indexes the model declares (`.indexed` attributes, to-one keys, uniqueness
    /// constraints, compound indexes) that the database lacks, and drops the indexes made for
    /// a declaration that is gone (compound, or an attribute no longer `.indexed`), as the
    /// SQLite store does on every open. Only what
    /// differs is written: `CREATE INDEX IF NOT EXISTS` would lock each table even for an
    /// index that exists.
    func createMissingIndexes(in db: PostgreSQLConnection) throws {
        let result = try db.query("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()")
        let existing = Set((0..<result.rowCount).compactMap { result.text($0, 0) })
        var declared = Set<String>()
        for entity in model.entities {
            for index in SQLSchema.indexes(of: entity) where !existing.contains(Self.identifier(index.name)) {
                try db.execute(SQLSchema.ifNotExists(index.sql))
            }
            for columns in entity.indexes {
                let name = SQLSchema.compoundIndexName(entity: entity.name, columns: columns)
                declared.insert(Self.identifier(name))
                guard !existing.contains(Self.identifier(name)) else { continue }
                try db.execute("CREATE INDEX IF NOT EXISTS \(SQLDialect.quote(name)) ON \(SQLSchema.table(entity))(\(columns.map(SQLDialect.quote).joined(separator: ", ")))")
            }
        }
        let prefix = Self.identifier(SQLSchema.compoundIndexPrefix)
        for name in existing where name.hasPrefix(prefix) && !declared.contains(name) {
            try db.execute("DROP INDEX IF EXISTS \(SQLDialect.quote(name))")
        }
        for entity in model.entities {
            for name in SQLSchema.undeclaredAttributeIndexNames(of: entity) where existing.contains(Self.identifier(name)) {
                try db.execute("DROP INDEX IF EXISTS \(SQLDialect.quote(Self.identifier(name)))")
            }
        }
    }

    /// A name as PostgreSQL stores it: cut to 63 bytes, on a character boundary.
    static func identifier(_ name: String) -> String {
        var bytes = 0
        return String(name.unicodeScalars.prefix { scalar in
            bytes += String(scalar).utf8.count
            return bytes <= 63
        }.map(Character.init))
    }

    /// Drops the entity's old unique indexes and makes its new ones; a pair of rows that
    /// share a new constraint's values fails the stage, naming both.
    private func replaceUniqueIndexes(of entity: EntityDescription, droppedCount: Int, stage: String,
                                      in db: PostgreSQLConnection) throws {
        for n in 0..<droppedCount { try db.execute("DROP INDEX IF EXISTS \(SQLDialect.quote("\(entity.name)_unique_\(n)"))") }
        for (n, columns) in entity.uniquenessConstraints.enumerated() {
            if let duplicate = try firstDuplicate(in: entity, columns: columns, stage: stage, in: db) { throw duplicate }
            let name = SQLDialect.quote("\(entity.name)_unique_\(n)")
            try db.execute("CREATE UNIQUE INDEX \(name) ON \(SQLSchema.table(entity))(\(columns.map(SQLDialect.quote).joined(separator: ", ")))")
        }
    }

    /// The first pair of rows with the same values of `columns` (nils never clash, as with
    /// the index itself), as the stage's failure.
    private func firstDuplicate(in entity: EntityDescription, columns: [String], stage: String,
                                in db: PostgreSQLConnection) throws -> MigrationError? {
        let quoted = columns.map(SQLDialect.quote)
        let result = try db.query("""
            SELECT MIN(_pk), MAX(_pk), (array_agg(\(raw: quoted[0])))[1] FROM \(raw: SQLSchema.table(entity))
            WHERE \(raw: quoted.map { "\($0) IS NOT NULL" }.joined(separator: " AND "))
            GROUP BY \(raw: quoted.joined(separator: ", ")) HAVING COUNT(*) > 1 ORDER BY MIN(_pk) LIMIT 1
            """)
        guard result.rowCount > 0 else { return nil }
        let type = entity.attribute(named: columns[0])?.type ?? .string
        return MigrationError.stageFailed(MigrationFailure(
            stage: stage, entity: entity.name, primaryKey: result.int(0, 1), property: columns.joined(separator: ", "),
            value: InspectedValue(result.value(0, 2, as: type)), reason: .duplicate(of: result.int(0, 0))))
    }

    /// `char_length` counts Unicode scalars, never fewer than Swift's characters: it finds
    /// the candidates, Swift decides (as on SQLite).
    private func checkLength(of attribute: String, in entity: EntityDescription, maximum: Int, stage: String,
                             in db: PostgreSQLConnection) throws {
        let column = SQLDialect.quote(attribute)
        let result = try db.query("""
            SELECT _pk, \(raw: column) FROM \(raw: SQLSchema.table(entity))
            WHERE char_length(\(raw: column)) > \(.int(Int64(maximum))) ORDER BY _pk
            """)
        for row in 0..<result.rowCount {
            guard let text = result.text(row, 1), text.count > maximum else { continue }
            throw MigrationError.stageFailed(MigrationFailure(
                stage: stage, entity: entity.name, primaryKey: result.int(row, 0), property: attribute,
                value: .string(text), reason: .tooLong(maximum: maximum)))
        }
    }
}
