import Foundation

/// Purging persistent history, and the cursors that hold purging back: a registered
/// consumer's cursor marks what it has not read yet, and a purge never passes it.
extension SQLiteStore {
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
                for statement in HistoryStatements.purge(through: through) { try db.run(statement) }
                try Self.setMetadataValue("historyPurgedThrough", String(through), in: db)
                return through
            }
        }
    }

    func cursor(named consumer: String) throws -> PersistentHistoryToken? {
        try pool.read { db in
            let statement = try db.prepared(HistoryStatements.cursor(named: consumer))
            defer { statement.reset() }
            return try statement.step() ? PersistentHistoryToken(storeIdentifier: identifier, transactionNumber: statement.int(at: 0)) : nil
        }
    }

    func setCursor(named consumer: String, to token: PersistentHistoryToken?) throws {
        try pool.write { db in try db.run(HistoryStatements.setCursor(named: consumer, to: token, dialect: dialect)) }
    }
}
