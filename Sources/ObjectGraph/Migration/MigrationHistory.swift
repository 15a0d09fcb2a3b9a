import Foundation
import Synchronization

/// The one persistent-history transaction a migration records, with author `migration`:
/// every save of its custom stages adds its changes to it, and a migration without custom
/// stages records it without changes, as a marker of when the file changed version.
final class MigrationHistoryTransaction: Sendable {
    let author = "migration"
    /// "migration 1 → 3".
    let contextName: String
    private let recorded = Locked<Int64?>(nil)

    init(contextName: String) { self.contextName = contextName }

    /// The transaction's number, recording its header with `insert` the first time.
    func number(recordingWith insert: () throws -> Int64) throws -> Int64 {
        try recorded.withLock { number in
            if let number { return number }
            let new = try insert()
            number = new
            return new
        }
    }

    var number: Int64? { recorded.withLock { $0 } }
}

/// Keeps recorded history readable by the new version: after each stage, the changes of
/// renamed entities and properties carry the new names, those of removed entities are
/// deleted (their transactions stay, so tokens keep their meaning), removed properties leave
/// the `updated` lists and tombstones, and tombstone values of converted attributes are
/// converted (exactly, like the rows).
enum HistoryRewrite {
    static func apply(_ change: StageChange, stage: String, in db: SQLiteConnection) throws {
        for entity in change.removedEntities {
            try run("DELETE FROM _og_history_tombstone WHERE change IN (SELECT id FROM _og_history_change WHERE entity = ?)",
                    [.string(entity)], in: db)
            try run("DELETE FROM _og_history_change WHERE entity = ?", [.string(entity)], in: db)
        }
        let renames = change.entityRenames
        if !renames.isEmpty {
            // One statement, so that two entities trading names do not end up under one.
            let cases = renames.keys.sorted().map { _ in "WHEN ? THEN ?" }.joined(separator: " ")
            let bindings = renames.keys.sorted().flatMap { [StoredValue.string($0), .string(renames[$0] ?? $0)] }
            let list = Array(repeating: "?", count: renames.count).joined(separator: ", ")
            try run("UPDATE _og_history_change SET entity = CASE entity \(cases) END WHERE entity IN (\(list))",
                    bindings + renames.keys.sorted().map(StoredValue.string), in: db)
        }
        for entity in change.entities {
            try rewriteProperties(of: entity, in: db)
            for column in entity.conversions {
                try convertTombstones(of: entity.newName, column: column, stage: stage, in: db)
            }
        }
    }

    private static func rewriteProperties(of entity: EntityChange, in db: SQLiteConnection) throws {
        let renames = entity.propertyRenames, removed = Set(entity.removedProperties)
        guard !renames.isEmpty || !removed.isEmpty else { return }
        let select = try db.uncachedStatement("SELECT id, updated FROM _og_history_change WHERE entity = ? AND updated IS NOT NULL")
        select.bind(.string(entity.newName), at: 1)
        var rewritten: [(Int64, String?)] = []
        while try select.step() {
            let names = (select.string(at: 1) ?? "").split(separator: ",").map(String.init)
            let new = names.filter { !removed.contains($0) }.map { renames[$0] ?? $0 }
            if new != names { rewritten.append((select.int(at: 0), new.isEmpty ? nil : new.joined(separator: ","))) }
        }
        select.reset()
        for (id, updated) in rewritten {
            try run("UPDATE _og_history_change SET updated = ? WHERE id = ?", [updated.map(StoredValue.string) ?? .null, .int(id)], in: db)
        }
        let ofEntity = "change IN (SELECT id FROM _og_history_change WHERE entity = ?)"
        for name in removed {
            try run("DELETE FROM _og_history_tombstone WHERE attribute = ? AND \(ofEntity)", [.string(name), .string(entity.newName)], in: db)
        }
        for (old, new) in renames {
            try run("UPDATE _og_history_tombstone SET attribute = ? WHERE attribute = ? AND \(ofEntity)",
                    [.string(new), .string(old), .string(entity.newName)], in: db)
        }
    }

    private static func convertTombstones(of entity: String, column: ColumnPlan, stage: String, in db: SQLiteConnection) throws {
        guard let from = column.convertedFrom, let to = column.type else { return }
        let select = try db.uncachedStatement("""
            SELECT t.change, t.value, c.pk FROM _og_history_tombstone t JOIN _og_history_change c ON c.id = t.change
            WHERE c.entity = ? AND t.attribute = ?
            """)
        select.bind([.string(entity), .string(column.name)])
        var converted: [(Int64, StoredValue)] = []
        while try select.step() {
            let value = select.value(at: 1, as: from)
            guard let new = ValueConversion.convert(value, from: from, to: to) else {
                let primaryKey = select.int(at: 2)
                select.reset()
                throw MigrationError.stageFailed(MigrationFailure(
                    stage: stage, entity: entity, primaryKey: primaryKey, property: "\(column.name) (in a history tombstone)",
                    value: InspectedValue(value), reason: .inexactConversion(from: from, to: to)))
            }
            converted.append((select.int(at: 0), new))
        }
        select.reset()
        for (change, value) in converted {
            try run("UPDATE _og_history_tombstone SET value = ? WHERE change = ? AND attribute = ?",
                    [value, .int(change), .string(column.name)], in: db)
        }
    }

    private static func run(_ sql: String, _ bindings: [StoredValue], in db: SQLiteConnection) throws {
        let statement = try db.uncachedStatement(sql)
        statement.bind(bindings)
        try statement.run()
    }
}
