import CSQLite
import Foundation

/// One object's persistent history: the transactions that touched one row, read along the
/// index `_og_history_change_object` (entity, pk, txn), so a page costs the same among ten
/// transactions or ten million.
extension SQLiteStore {
    /// The query for one object's changes with their transactions, in `order`; `bounded`
    /// adds a parameter for the transaction number to continue past.
    ///
    /// ```sql
    /// SELECT c.id, ..., t.timestamp, ... FROM _og_history_change c
    /// JOIN _og_history_transaction t ON t.number = c.txn
    /// WHERE c.entity = ? AND c.pk = ? AND c.txn < ? ORDER BY c.txn DESC, c.id DESC
    /// ```
    static func objectHistorySQL(order: HistoryOrder, bounded: Bool) -> String {
        let (direction, comparison) = order == .newestFirst ? ("DESC", "<") : ("ASC", ">")
        return """
            SELECT \(historyChangeColumns), t.timestamp, t.author, t.context, t.pid
            FROM _og_history_change c JOIN _og_history_transaction t ON t.number = c.txn
            WHERE c.entity = ? AND c.pk = ?\(bounded ? " AND c.txn \(comparison) ?" : "")
            ORDER BY c.txn \(direction), c.id \(direction)
            """
    }

    /// The transactions that touched the object, each with that object's changes only, in
    /// `order`, at most `limit`, continuing past `token` in that order when given.
    func history(of objectID: ObjectID, order: HistoryOrder, limit: Int?, startingAfter token: PersistentHistoryToken?,
                 in db: SQLiteConnection) throws -> [PersistentHistoryTransaction] {
        if let store = objectID.storeIdentifier, store != identifier {
            throw PersistentHistoryError.objectOfAnotherStore(objectID, store: identifier)
        }
        if let token {
            if token.storeIdentifier != identifier { throw PersistentHistoryError.tokenOfAnotherStore(token, store: identifier) }
            // Reading forwards from a purged token would skip changes without a word.
            if order == .oldestFirst { try validate(token, in: db) }
        }
        // A temporary ID names no row yet, so nothing of it is in the history.
        guard let pk = objectID.primaryKey, limit.map({ $0 > 0 }) ?? true else { return [] }
        let statement = try db.prepared(SQLFragment(Self.objectHistorySQL(order: order, bounded: token != nil),
                                                    [.string(objectID.entityName), .int(pk)]
                                                        + (token.map { [.int($0.transactionNumber)] } ?? [])))
        defer { statement.reset() }
        var rows: [HistoryChangeRow] = []
        var headers: [(number: Int64, timestamp: Date, author: String?, context: String?, pid: Int32)] = []
        while try statement.step() {
            guard let row = HistoryChangeRow(statement) else { continue }
            if row.txn != headers.last?.number {
                // The rows come in transaction order: a new number after `limit` of them is the end.
                if let limit, headers.count == limit { break }
                headers.append((row.txn, Date(timeIntervalSince1970: sqlite3_column_double(statement.handle, 6)),
                                statement.string(at: 7), statement.string(at: 8), Int32(truncatingIfNeeded: statement.int(at: 9))))
            }
            rows.append(row)
        }
        statement.reset()
        var changesByTransaction: [Int64: [PersistentHistoryChange]] = [:]
        for (row, change) in zip(rows, try changes(of: rows, contiguous: false, in: db)) {
            changesByTransaction[row.txn, default: []].append(change)
        }
        return headers.map { header in
            PersistentHistoryTransaction(
                number: header.number, token: PersistentHistoryToken(storeIdentifier: identifier, transactionNumber: header.number),
                timestamp: header.timestamp, author: header.author, contextName: header.context, processID: header.pid,
                changes: changesByTransaction[header.number] ?? [])
        }
    }
}
