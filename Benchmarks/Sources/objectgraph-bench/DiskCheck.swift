import CSQLiteBench
import Foundation

/// Checks an engine's file through a connection of the harness's own after the writing
/// operations: what an engine claims to have saved must be in the file. (Reads are checked by
/// their digests.)
enum DiskCheck {
    /// After an insert: WAL with synchronous=NORMAL's file, every row, the index the
    /// relationship needs, and a sample of rows compared value by value.
    static func afterInsert<Model: BenchModel>(path: String, dataset: Dataset<Model>) throws {
        try withConnection(path) { db in
            try expect(db.scalarText("PRAGMA journal_mode") == "wal", "journal_mode is not WAL")
            try expect(db.scalarInt("SELECT count(*) FROM Client") == dataset.clients.count, "client count")
            try expect(db.scalarInt("SELECT count(*) FROM Invoice") == dataset.invoices.count, "invoice count")
            try expect(db.scalarInt("""
                SELECT count(*) FROM pragma_index_list('Invoice') AS list
                JOIN pragma_index_info(list.name) AS info
                WHERE info.name = 'client' AND info.seqno = 0
                """) > 0, "no index on Invoice.client")
            try Model.checkSample(db, dataset)
        }
    }

    /// After an update: exactly the chosen invoices carry the new notes.
    static func afterUpdate(path: String, notes: String, count: Int) throws {
        try withConnection(path) { db in
            let found = try db.scalarInt("SELECT count(*) FROM Invoice WHERE notes = ?", notes)
            try expect(found == count, "\(found) invoices have the new notes, expected \(count)")
        }
    }

    private static func withConnection(_ path: String, _ body: (SQLiteConnection) throws -> Void) throws {
        let db = try SQLiteConnection(path: path, readOnly: true)
        defer { db.close() }
        do {
            try body(db)
        } catch {
            throw HarnessError("on-disk check of \(path): \(error)")
        }
    }

    private static func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw HarnessError(message()) }
    }
}
