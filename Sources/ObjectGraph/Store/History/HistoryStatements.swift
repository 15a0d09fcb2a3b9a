import Foundation

/// The statements of persistent history that read the same in every dialect: purging and
/// consumer cursors (the stores' tables have the same names and columns).
package enum HistoryStatements {
    /// Deletes what history holds up to and including transaction `through`: tombstones,
    /// values, changes, then the transactions.
    package static func purge(through: Int64) -> [SQLFragment] {
        let last = StoredValue.int(through)
        return [
            "DELETE FROM _og_history_tombstone WHERE change IN (SELECT id FROM _og_history_change WHERE txn <= \(last))",
            "DELETE FROM _og_history_value WHERE change IN (SELECT id FROM _og_history_change WHERE txn <= \(last))",
            "DELETE FROM _og_history_change WHERE txn <= \(last)",
            "DELETE FROM _og_history_transaction WHERE number <= \(last)",
        ]
    }

    /// A consumer's stored cursor: one row, its number, or none.
    package static func cursor(named consumer: String) -> SQLFragment {
        "SELECT number FROM _og_history_cursor WHERE consumer = \(.string(consumer))"
    }

    /// Stores a consumer's cursor (now as its time), or removes it when `token` is nil.
    package static func setCursor(named consumer: String, to token: PersistentHistoryToken?,
                                  dialect: SQLDialect) -> SQLFragment {
        guard let token else { return "DELETE FROM _og_history_cursor WHERE consumer = \(.string(consumer))" }
        return dialect.upsert(into: "_og_history_cursor", key: "consumer", columns: ["number", "updated"],
                              values: [.string(consumer), .int(token.transactionNumber), .double(Date().timeIntervalSince1970)])
    }
}
