import CSQLite
import Foundation

/// One object's change as a save or batch request writes it, before it is recorded.
struct HistoryRecord: Sendable {
    let entity: String
    let primaryKey: Int64
    let kind: PersistentHistoryChange.Kind
    var updated: [String] = []
    var tombstone: [String: StoredValue]?
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
        """

    /// Turns history on in the file when `requested`, and reports whether the file records
    /// it (a file that once did always does). Writes only when something is missing.
    static func prepareHistory(_ db: SQLiteConnection, requested: Bool) throws -> Bool {
        let enabled = try metadataValue("historyEnabled", in: db) == "1"
        guard requested || enabled else { return false }
        let tables = try db.statement("SELECT COUNT(*) FROM sqlite_master WHERE name = '_og_history_cursor'")
        defer { tables.reset() }
        _ = try tables.step()
        if !enabled || tables.int(at: 0) == 0 {
            try db.transaction {
                try db.execute(historySchema)
                try setMetadataValue("historyEnabled", "1", in: db)
            }
        }
        return true
    }

    static func metadataValue(_ key: String, in db: SQLiteConnection) throws -> String? {
        let statement = try db.statement("SELECT value FROM _og_metadata WHERE key = ?")
        defer { statement.reset() }
        statement.bind(.string(key), at: 1)
        return try statement.step() ? statement.string(at: 0) : nil
    }

    static func setMetadataValue(_ key: String, _ value: String, in db: SQLiteConnection) throws {
        let statement = try db.statement("INSERT OR REPLACE INTO _og_metadata (key, value) VALUES (?, ?)")
        statement.bind([.string(key), .string(value)])
        try statement.run()
    }

    // MARK: Writing

    /// Records a transaction and its changes; call it inside the write transaction. During a
    /// migration, the changes join the migration's one transaction instead.
    func recordHistory(_ records: [HistoryRecord], author: String?, contextName: String?,
                       in db: SQLiteConnection) throws -> PersistentHistoryToken {
        let number: Int64
        if let migration = migrationHistory {
            number = try migration.number { try insertHistoryTransaction(author: migration.author, contextName: migration.contextName, in: db) }
        } else {
            number = try insertHistoryTransaction(author: author, contextName: contextName, in: db)
        }
        try insertHistoryChanges(records, transaction: number, in: db)
        return PersistentHistoryToken(storeIdentifier: identifier, transactionNumber: number)
    }

    /// A new transaction's header; returns its number.
    func insertHistoryTransaction(author: String?, contextName: String?, in db: SQLiteConnection) throws -> Int64 {
        try Self.insertHistoryTransaction(author: author, contextName: contextName, writerIdentity: writerIdentity, in: db)
    }

    static func insertHistoryTransaction(author: String?, contextName: String?, writerIdentity: String,
                                         in db: SQLiteConnection) throws -> Int64 {
        let transaction = try db.statement(
            "INSERT INTO _og_history_transaction (timestamp, author, context, pid, coordinator) VALUES (?, ?, ?, ?, ?)")
        transaction.bind([.double(Date().timeIntervalSince1970), author.map(StoredValue.string) ?? .null,
                          contextName.map(StoredValue.string) ?? .null, .int(Int64(getpid())), .string(writerIdentity)])
        try transaction.run()
        return sqlite3_last_insert_rowid(db.handle)
    }

    private func insertHistoryChanges(_ records: [HistoryRecord], transaction number: Int64, in db: SQLiteConnection) throws {
        let change = try db.statement("INSERT INTO _og_history_change (txn, entity, pk, kind, updated) VALUES (?, ?, ?, ?, ?)")
        let tombstone = try db.statement("INSERT INTO _og_history_tombstone (change, attribute, value) VALUES (?, ?, ?)")
        for record in records {
            change.reset()
            change.bind([.int(number), .string(record.entity), .int(record.primaryKey), .int(Int64(record.kind.rawValue)),
                         record.updated.isEmpty ? .null : .string(record.updated.joined(separator: ","))])
            try change.run()
            guard let values = record.tombstone, !values.isEmpty else { continue }
            let changeID = sqlite3_last_insert_rowid(db.handle)
            for (name, value) in values {
                tombstone.reset()
                tombstone.bind([.int(changeID), .string(name), value])
                try tombstone.run()
            }
        }
    }

    /// The values of the attributes a deleted row keeps in history (nil when none are
    /// declared); call it inside the write transaction, before the row is deleted.
    func tombstoneValues(entity: EntityDescription, primaryKey: Int64, in db: SQLiteConnection) throws -> [String: StoredValue]? {
        let kept = entity.attributes.filter(\.isPreservedInHistoryOnDeletion)
        guard !kept.isEmpty else { return nil }
        let columns = kept.map { SQLSchema.quote($0.name) }.joined(separator: ", ")
        let statement = try db.statement("SELECT \(columns) FROM \(SQLSchema.table(entity)) WHERE _pk = ?")
        defer { statement.reset() }
        statement.bind(.int(primaryKey), at: 1)
        guard try statement.step() else { return nil }
        var values: [String: StoredValue] = [:]
        for (n, attribute) in kept.enumerated() { values[attribute.name] = statement.value(at: Int32(n), as: attribute.type) }
        return values
    }

    /// The names of the properties whose values differ from `base` (unloaded to-many
    /// relationships count as unchanged).
    static func changedProperties(_ values: [StoredValue], from base: [StoredValue], entity: EntityDescription) -> [String] {
        var names: [String] = []
        for (i, property) in entity.properties.enumerated() where i < values.count {
            if case .unloaded = values[i] { continue }
            if i < base.count, case .unloaded = base[i], case .relationship = property {
                if case .references = values[i] { names.append(property.name) }
                continue
            }
            if i >= base.count || !ManagedObject.sameValue(values[i], base[i]) { names.append(property.name) }
        }
        return names
    }

    // MARK: Reading

    func requireHistory() throws {
        if !recordsHistory { throw PersistentHistoryError.notRecorded(path: path) }
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
        let transactions = try db.statement("""
            SELECT number, timestamp, author, context, pid, coordinator FROM _og_history_transaction
            WHERE number > ? ORDER BY number\(limit.map { " LIMIT \(max(0, $0))" } ?? "")
            """)
        defer { transactions.reset() }
        transactions.bind(.int(after), at: 1)
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
        let statement = try db.statement("""
            SELECT c.id, c.txn, c.entity, c.pk, c.kind, c.updated FROM _og_history_change c
            WHERE c.txn BETWEEN ? AND ? ORDER BY c.id
            """)
        defer { statement.reset() }
        statement.bind([.int(first), .int(last)])
        var result: [Int64: [PersistentHistoryChange]] = [:]
        var deletes: [(txn: Int64, position: Int, change: Int64)] = []
        while try statement.step() {
            let txn = statement.int(at: 1)
            guard let entity = statement.string(at: 2), let kind = PersistentHistoryChange.Kind(rawValue: Int(statement.int(at: 4)))
            else { continue }
            let id = ObjectID(entityName: entity, key: .permanent(store: identifier, primaryKey: statement.int(at: 3)))
            let updated = statement.string(at: 5).map { Set($0.split(separator: ",").map(String.init)) } ?? []
            if kind == .delete, model.entity(named: entity)?.attributes.contains(where: \.isPreservedInHistoryOnDeletion) == true {
                deletes.append((txn, result[txn, default: []].count, statement.int(at: 0)))
            }
            result[txn, default: []].append(PersistentHistoryChange(objectID: id, kind: kind, updatedProperties: updated, tombstone: nil))
        }
        // Tombstones, for the deletes of entities that keep some.
        if !deletes.isEmpty {
            let tombstones = try db.statement("SELECT attribute, value FROM _og_history_tombstone WHERE change = ?")
            for (txn, position, change) in deletes {
                guard let old = result[txn]?[position], let entity = model.entity(named: old.objectID.entityName) else { continue }
                tombstones.reset()
                tombstones.bind(.int(change), at: 1)
                var values: [String: StoredValue] = [:]
                while try tombstones.step() {
                    guard let name = tombstones.string(at: 0), let attribute = entity.attribute(named: name) else { continue }
                    values[name] = tombstones.value(at: 1, as: attribute.type)
                }
                result[txn]?[position] = PersistentHistoryChange(objectID: old.objectID, kind: .delete, updatedProperties: [],
                                                                 tombstone: values.isEmpty ? nil : Tombstone(values: values))
            }
            tombstones.reset()
        }
        return result
    }

    // MARK: Purging and cursors

    /// Deletes the transactions up to and including `token`'s, but none a registered
    /// consumer has not read. Returns the number purged through.
    func purgeHistory(through token: PersistentHistoryToken) throws -> Int64 {
        try pool.write { db in
            try db.transaction {
                // Purging what is already purged is nothing to do, not an error.
                let already = try purgedThrough(in: db)
                if token.storeIdentifier == identifier && token.transactionNumber <= already { return already }
                try validate(token, in: db)
                let lowest = try db.statement("SELECT MIN(number) FROM _og_history_cursor")
                defer { lowest.reset() }
                _ = try lowest.step()
                var through = token.transactionNumber
                if !lowest.isNull(at: 0) { through = min(through, lowest.int(at: 0)) }
                let purged = try purgedThrough(in: db)
                guard through > purged else { return purged }
                for sql in ["DELETE FROM _og_history_tombstone WHERE change IN (SELECT id FROM _og_history_change WHERE txn <= ?)",
                            "DELETE FROM _og_history_change WHERE txn <= ?",
                            "DELETE FROM _og_history_transaction WHERE number <= ?"] {
                    let statement = try db.statement(sql)
                    statement.bind(.int(through), at: 1)
                    try statement.run()
                }
                try Self.setMetadataValue("historyPurgedThrough", String(through), in: db)
                return through
            }
        }
    }

    func cursor(named consumer: String) throws -> PersistentHistoryToken? {
        try pool.read { db in
            let statement = try db.statement("SELECT number FROM _og_history_cursor WHERE consumer = ?")
            defer { statement.reset() }
            statement.bind(.string(consumer), at: 1)
            return try statement.step() ? PersistentHistoryToken(storeIdentifier: identifier, transactionNumber: statement.int(at: 0)) : nil
        }
    }

    func setCursor(named consumer: String, to token: PersistentHistoryToken?) throws {
        try pool.write { db in
            let statement: SQLiteStatement
            if let token {
                statement = try db.statement("INSERT OR REPLACE INTO _og_history_cursor (consumer, number, updated) VALUES (?, ?, ?)")
                statement.bind([.string(consumer), .int(token.transactionNumber), .double(Date().timeIntervalSince1970)])
            } else {
                statement = try db.statement("DELETE FROM _og_history_cursor WHERE consumer = ?")
                statement.bind(.string(consumer), at: 1)
            }
            try statement.run()
        }
    }
}
