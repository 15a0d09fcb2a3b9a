import CSQLite
import Foundation

/// A row of `_og_history_change`, read with `SQLiteStore.historyChangeColumns`.
struct HistoryChangeRow {
    let id: Int64
    let txn: Int64
    let entity: String
    let pk: Int64
    let kind: PersistentHistoryChange.Kind
    let updated: String?

    /// Nil for a row this version cannot read (an unknown kind).
    init?(_ statement: SQLiteStatement, offset: Int32 = 0) {
        guard let entity = statement.string(at: offset + 2),
              let kind = PersistentHistoryChange.Kind(rawValue: Int(statement.int(at: offset + 4))) else { return nil }
        (id, txn, self.entity, pk, self.kind) = (statement.int(at: offset), statement.int(at: offset + 1), entity,
                                                 statement.int(at: offset + 3), kind)
        updated = statement.string(at: offset + 5)
    }
}

/// Persistent history in the store's own tables, written in the same transaction as the
/// changes it describes: a transaction is in the history exactly when its data is in the
/// file (a process killed mid-write leaves neither).
///
/// Invariants:
/// - `_og_history_transaction.number` is `AUTOINCREMENT`: numbers only grow and are never
///   reused, even after purging, so a token's meaning never changes.
/// - `historyPurgedThrough` in `_og_metadata` only grows; a token below it has expired.
/// - A purge never passes the lowest cursor in `_og_history_cursor`: a registered consumer
///   never loses a transaction it has not read.
/// - `_og_history_change.id` grows with `txn` (rows are only appended, and purged from the
///   oldest), so a stretch of transactions is a stretch of change ids.
/// - A value is stored once: in `_og_history_value` (one row per change and property, old
///   and new side by side); a deleted attribute both preserved and recording values keeps
///   its tombstone value there, not again in `_og_history_tombstone`.
/// - `_og_history_change_object` on (entity, pk, txn) makes one object's history a range
///   of an index, however long the history is.
extension SQLiteStore {
    static let historySchema = """
        CREATE TABLE IF NOT EXISTS _og_history_transaction (
            number INTEGER PRIMARY KEY AUTOINCREMENT, timestamp REAL NOT NULL, author TEXT,
            context TEXT, pid INTEGER NOT NULL, coordinator TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS _og_history_change (
            id INTEGER PRIMARY KEY, txn INTEGER NOT NULL, entity TEXT NOT NULL, pk INTEGER NOT NULL,
            kind INTEGER NOT NULL, updated TEXT);
        CREATE INDEX IF NOT EXISTS _og_history_change_txn ON _og_history_change(txn);
        CREATE TABLE IF NOT EXISTS _og_history_tombstone (
            change INTEGER NOT NULL, attribute TEXT NOT NULL, value, PRIMARY KEY (change, attribute)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS _og_history_cursor (
            consumer TEXT PRIMARY KEY, number INTEGER NOT NULL, updated REAL NOT NULL);
        CREATE TABLE IF NOT EXISTS _og_history_value (
            change INTEGER NOT NULL, property TEXT NOT NULL, type INTEGER NOT NULL, destination TEXT, old, new,
            PRIMARY KEY (change, property)) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS _og_history_change_object ON _og_history_change(entity, pk, txn);
        """

    /// The schema objects `historySchema` makes; a file lacking one (made by an earlier
    /// version) gets it when it opens.
    static let historySchemaObjects = ["_og_history_cursor", "_og_history_value", "_og_history_change_object"]

    /// Turns history on in the file when `requested`, and reports whether the file records
    /// it (a file that once did always does). Writes only when something is missing.
    static func prepareHistory(_ db: SQLiteConnection, requested: Bool) throws -> Bool {
        let enabled = try metadataValue("historyEnabled", in: db) == "1"
        guard requested || enabled else { return false }
        let names = historySchemaObjects.map { "'\($0)'" }.joined(separator: ", ")
        let tables = try db.statement("SELECT COUNT(*) FROM sqlite_master WHERE name IN (\(names))")
        defer { tables.reset() }
        _ = try tables.step()
        if !enabled || tables.int(at: 0) < historySchemaObjects.count {
            try db.transaction {
                try db.execute(historySchema)
                try setMetadataValue("historyEnabled", "1", in: db)
            }
        }
        return true
    }

    static func metadataValue(_ key: String, in db: SQLiteConnection) throws -> String? {
        let statement = try db.prepared("SELECT value FROM _og_metadata WHERE key = \(.string(key))")
        defer { statement.reset() }
        return try statement.step() ? statement.string(at: 0) : nil
    }

    static func setMetadataValue(_ key: String, _ value: String, in db: SQLiteConnection) throws {
        try db.run(SQLDialect.sqlite.upsert(into: "_og_metadata", key: "key", columns: ["value"],
                                            values: [.string(key), .string(value)]))
    }

    // MARK: Writing

    /// Records a transaction and its changes; call it inside the write transaction.
    /// Nil when there is no record (nothing is written then).
    func recordHistory(_ records: [HistoryRecord], author: String?, contextName: String?,
                       in db: SQLiteConnection) throws -> PersistentHistoryToken? {
        var writer = try HistoryWriter(store: self, author: author, contextName: contextName, db: db)
        for record in records { try writer.append(record) }
        return writer.finish()
    }

    /// A new transaction's header; returns its number.
    func insertHistoryTransaction(author: String?, contextName: String?, in db: SQLiteConnection) throws -> Int64 {
        try Self.insertHistoryTransaction(author: author, contextName: contextName, writerIdentity: writerIdentity, in: db)
    }

    static func insertHistoryTransaction(author: String?, contextName: String?, writerIdentity: String,
                                         in db: SQLiteConnection) throws -> Int64 {
        try db.run("""
            INSERT INTO _og_history_transaction (timestamp, author, context, pid, coordinator)
            VALUES (\(values: [.double(Date().timeIntervalSince1970), author.map(StoredValue.string) ?? .null,
                              contextName.map(StoredValue.string) ?? .null, .int(Int64(getpid())), .string(writerIdentity)]))
            """)
        return sqlite3_last_insert_rowid(db.handle)
    }

    // MARK: Reading

    func currentHistoryToken() throws -> PersistentHistoryToken {
        try pool.read { try currentHistoryToken(in: $0) }
    }

    func history(after token: PersistentHistoryToken?, limit: Int?,
                 excludingOwn: Bool) throws -> (transactions: [PersistentHistoryTransaction], latest: PersistentHistoryToken) {
        try pool.read { db in
            try db.transaction(immediate: false) {
                (try history(after: token, limit: limit, excludingOwn: excludingOwn, in: db), try currentHistoryToken(in: db))
            }
        }
    }

    func history(of objectID: ObjectID, order: HistoryOrder, limit: Int?,
                 startingAfter token: PersistentHistoryToken?) throws -> [PersistentHistoryTransaction] {
        try pool.read { db in
            try db.transaction(immediate: false) {
                try history(of: objectID, order: order, limit: limit, startingAfter: token, in: db)
            }
        }
    }

    func validate(_ token: PersistentHistoryToken) throws {
        try pool.read { try validate(token, in: $0) }
    }

    /// The token of the last transaction (0 when none was ever written).
    func currentHistoryToken(in db: SQLiteConnection) throws -> PersistentHistoryToken {
        let statement = try db.statement("SELECT seq FROM sqlite_sequence WHERE name = '_og_history_transaction'")
        defer { statement.reset() }
        let number = try statement.step() ? statement.int(at: 0) : 0
        return PersistentHistoryToken(storeIdentifier: identifier, transactionNumber: number)
    }

    func purgedThrough(in db: SQLiteConnection) throws -> Int64 {
        Int64(try Self.metadataValue("historyPurgedThrough", in: db) ?? "0") ?? 0
    }

    /// Checks that history after `token` is all still there.
    func validate(_ token: PersistentHistoryToken, in db: SQLiteConnection) throws {
        if token.storeIdentifier != identifier {
            throw PersistentHistoryError.tokenOfAnotherStore(token, store: identifier)
        }
        let purged = try purgedThrough(in: db)
        if token.transactionNumber < purged { throw PersistentHistoryError.tokenExpired(token, purgedThrough: purged) }
        let last = try currentHistoryToken(in: db).transactionNumber
        if token.transactionNumber > last { throw PersistentHistoryError.tokenInTheFuture(token, last: last) }
    }

    /// The transactions after `token` (all there are when nil), oldest first, at most
    /// `limit`; `excludingWriter` skips the transactions this store's own writer made.
    func history(after token: PersistentHistoryToken?, limit: Int?, excludingOwn: Bool = false,
                 in db: SQLiteConnection) throws -> [PersistentHistoryTransaction] {
        if let token { try validate(token, in: db) }
        let after = token?.transactionNumber ?? 0
        let transactions = try db.prepared("""
            SELECT number, timestamp, author, context, pid, coordinator FROM _og_history_transaction
            WHERE number > \(.int(after)) ORDER BY number\(raw: limit.map { " LIMIT \(max(0, $0))" } ?? "")
            """)
        defer { transactions.reset() }
        var headers: [(Int64, Date, String?, String?, Int32)] = []
        while try transactions.step() {
            if excludingOwn && transactions.string(at: 5) == writerIdentity { continue }
            headers.append((transactions.int(at: 0), Date(timeIntervalSince1970: sqlite3_column_double(transactions.handle, 1)),
                            transactions.string(at: 2), transactions.string(at: 3), Int32(truncatingIfNeeded: transactions.int(at: 4))))
        }
        guard let first = headers.first?.0, let last = headers.last?.0 else { return [] }
        let changesByTransaction = try historyChanges(from: first, through: last, in: db)
        return headers.map { number, timestamp, author, context, pid in
            PersistentHistoryTransaction(
                number: number, token: PersistentHistoryToken(storeIdentifier: identifier, transactionNumber: number),
                timestamp: timestamp, author: author, contextName: context, processID: pid,
                changes: changesByTransaction[number] ?? [])
        }
    }

    private func historyChanges(from first: Int64, through last: Int64,
                                in db: SQLiteConnection) throws -> [Int64: [PersistentHistoryChange]] {
        let statement = try db.prepared("""
            SELECT \(raw: Self.historyChangeColumns) FROM _og_history_change c
            WHERE c.txn BETWEEN \(.int(first)) AND \(.int(last)) ORDER BY c.id
            """)
        defer { statement.reset() }
        var rows: [HistoryChangeRow] = []
        while try statement.step() {
            if let row = HistoryChangeRow(statement) { rows.append(row) }
        }
        statement.reset()
        var result: [Int64: [PersistentHistoryChange]] = [:]
        for (row, change) in zip(rows, try changes(of: rows, contiguous: true, in: db)) {
            result[row.txn, default: []].append(change)
        }
        return result
    }

    /// The columns `HistoryChangeRow` reads, from `_og_history_change c`.
    static let historyChangeColumns = "c.id, c.txn, c.entity, c.pk, c.kind, c.updated"

    /// The changes of `rows`, in their order, with their values and tombstones.
    /// - Parameter contiguous: see ``historyValues(of:contiguous:in:)``.
    func changes(of rows: [HistoryChangeRow], contiguous: Bool, in db: SQLiteConnection) throws -> [PersistentHistoryChange] {
        var kinds: [Int64: PersistentHistoryChange.Kind] = [:]
        for row in rows { kinds[row.id] = row.kind }
        let values = try historyValues(of: kinds, contiguous: contiguous, in: db)
        return try rows.map { row in
            let id = ObjectID(entityName: row.entity, key: .permanent(store: identifier, primaryKey: row.pk))
            let updated = row.updated.map { Set($0.split(separator: ",").map(String.init)) } ?? []
            let entity = model.entity(named: row.entity)
            var tombstone: Tombstone?
            if row.kind == .delete, let entity, entity.attributes.contains(where: \.isPreservedInHistoryOnDeletion) {
                tombstone = try self.tombstone(change: row.id, entity: entity, values: values[row.id] ?? [:], in: db)
            }
            return PersistentHistoryChange(objectID: id, kind: row.kind, updatedProperties: updated, tombstone: tombstone,
                                           values: values[row.id] ?? [:])
        }
    }

    /// A delete's tombstone: the values kept for it, and the old values of preserved
    /// attributes that record values (stored there once, not twice).
    private func tombstone(change: Int64, entity: EntityDescription, values: [String: HistoryValueChange],
                           in db: SQLiteConnection) throws -> Tombstone? {
        let statement = try db.prepared("SELECT attribute, value FROM _og_history_tombstone WHERE change = \(.int(change))")
        defer { statement.reset() }
        var kept: [String: StoredValue] = [:]
        while try statement.step() {
            guard let name = statement.string(at: 0), let attribute = entity.attribute(named: name) else { continue }
            kept[name] = statement.value(at: 1, as: attribute.type)
        }
        for (name, value) in values {
            if entity.attribute(named: name)?.isPreservedInHistoryOnDeletion == true, let old = value.old {
                kept[name] = old.storedValue
            }
        }
        return kept.isEmpty ? nil : Tombstone(values: kept)
    }
}
