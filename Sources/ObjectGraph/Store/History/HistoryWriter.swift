import CSQLite
import Foundation

/// Writes one history transaction a change at a time, inside the store's write transaction:
/// the transaction row goes in with the first change, and each change (with its values and
/// tombstone) as it comes, so a batch that streams its rows never holds their history in
/// memory. A writer that received no change writes nothing.
struct HistoryWriter {
    let store: SQLiteStore
    let author: String?
    let contextName: String?
    let db: SQLiteConnection
    /// The transaction's number, once its row is written.
    private var number: Int64?
    /// Records come grouped by entity: each is looked up once per run of its records.
    private var entity: EntityDescription?
    // The connection's cached statements, looked up once (a look-up hashes the SQL text).
    private let change: SQLiteStatement, tombstone: SQLiteStatement

    init(store: SQLiteStore, author: String?, contextName: String?, db: SQLiteConnection) throws {
        self.store = store
        self.author = author
        self.contextName = contextName
        self.db = db
        change = try db.statement("INSERT INTO _og_history_change (txn, entity, pk, kind, updated) VALUES (?, ?, ?, ?, ?)")
        tombstone = try db.statement("INSERT INTO _og_history_tombstone (change, attribute, value) VALUES (?, ?, ?)")
    }

    /// Writes one change.
    mutating func append(_ record: HistoryRecord) throws {
        let number = try self.number ?? beginTransaction()
        change.reset()
        change.bind([.int(number), .string(record.entity), .int(record.primaryKey), .int(Int64(record.kind.rawValue)),
                     record.updated.isEmpty ? .null : .string(record.updated.joined(separator: ","))])
        try change.run()
        let kept = record.tombstone ?? [:]
        guard !kept.isEmpty || !record.values.isEmpty else { return }
        let changeID = sqlite3_last_insert_rowid(db.handle)
        if entity?.name != record.entity { entity = store.model.entity(named: record.entity) }
        var inValues = Set<String>()
        if !record.values.isEmpty, let entity {
            try store.recordValues(record.values, change: changeID, entity: entity, in: db)
            // A preserved attribute that records values keeps its tombstone value there, once.
            if !kept.isEmpty { inValues = Set(record.values.compactMap { entity.properties[safe: $0.index]?.name }) }
        }
        for (name, value) in kept where !inValues.contains(name) {
            tombstone.reset()
            tombstone.bind([.int(changeID), .string(name), value])
            try tombstone.run()
        }
    }

    /// The token of the transaction written; nil when no change was appended.
    func finish() -> PersistentHistoryToken? {
        number.map { PersistentHistoryToken(storeIdentifier: store.identifier, transactionNumber: $0) }
    }

    /// The transaction's row; during a migration, the migration's one transaction instead.
    private mutating func beginTransaction() throws -> Int64 {
        let number: Int64
        if let migration = store.migrationHistory {
            number = try migration.number {
                try store.insertHistoryTransaction(author: migration.author, contextName: migration.contextName, in: db)
            }
        } else {
            number = try store.insertHistoryTransaction(author: author, contextName: contextName, in: db)
        }
        self.number = number
        return number
    }
}
