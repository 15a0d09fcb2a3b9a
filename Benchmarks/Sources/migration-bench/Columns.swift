import CSQLiteBench
import Foundation
import ObjectGraph

/// The ways the same file is migrated from version 1 to 3. Each runs in a child process of
/// its own (see `Child`), so its peak memory is its own.
enum Column: String, CaseIterable, Sendable {
    /// Hand-written SQL in one transaction: the line items made by one INSERT … SELECT,
    /// columns renamed and dropped with ALTER TABLE. What SQLite does at its best, and what
    /// nothing that runs code per row can match.
    case rawSQL = "raw-sql"
    /// ObjectGraph's plan, the custom stage in batches of 1,000 invoices, no backup.
    case objectGraph = "objectgraph"
    /// The same, with the backup copy a migration makes by default.
    case objectGraphWithBackup = "objectgraph-backup"
    /// The custom stage in one batch of every invoice (not streamed), no backup: what
    /// batching saves in memory.
    case objectGraphOneBatch = "objectgraph-one-batch"

    var label: String {
        switch self {
        case .rawSQL: return "raw SQLite (set-based SQL)"
        case .objectGraph: return "ObjectGraph, batches of 1,000"
        case .objectGraphWithBackup: return "ObjectGraph, with backup"
        case .objectGraphOneBatch: return "ObjectGraph, one batch"
        }
    }

    func migrate(path: String, count: Int) throws {
        switch self {
        case .rawSQL: try RawMigration.run(path: path)
        case .objectGraph: try objectGraph(path: path, batchSize: 1_000, backup: false)
        case .objectGraphWithBackup: try objectGraph(path: path, batchSize: 1_000, backup: true)
        case .objectGraphOneBatch: try objectGraph(path: path, batchSize: count, backup: false)
        }
    }

    private func objectGraph(path: String, batchSize: Int, backup: Bool) throws {
        var description = PersistentStoreDescription.sqlite(at: URL(fileURLWithPath: path))
        description.migrationPlan = try V3.plan(batchSize: batchSize)
        description.backsUpBeforeMigrating = backup
        let coordinator = PersistentStoreCoordinator(model: V3.model)
        try coordinator.addPersistentStore(description)
        guard case .migrated? = coordinator.migrationOutcome else { throw BenchError("\(rawValue) did not migrate") }
    }
}

/// The migration written by hand in SQL, with the same result tables (not the metadata
/// ObjectGraph records, which costs nothing measurable).
enum RawMigration {
    static func run(path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw BenchError("cannot open \(path)") }
        defer { sqlite3_close(db) }
        try execute("""
            BEGIN IMMEDIATE;
            ALTER TABLE "Invoice" RENAME COLUMN "number" TO "identifier";
            ALTER TABLE "Invoice" ADD COLUMN "dueDate" REAL;
            UPDATE "Invoice" SET "dueDate" = 1738368000;
            ALTER TABLE "Client" ADD COLUMN "city" TEXT;
            CREATE TABLE "LineItem" (_pk INTEGER PRIMARY KEY, _version INTEGER NOT NULL DEFAULT 1,
                "itemDescription" TEXT, "quantity" TEXT, "unitPrice" TEXT, "invoice" INTEGER);
            INSERT INTO "LineItem" (_pk, _version, "itemDescription", "quantity", "unitPrice", "invoice")
                SELECT _pk, 1, 'Invoice total', '1', "amount", _pk FROM "Invoice";
            CREATE TABLE "_order_Invoice_lineItems" (owner INTEGER NOT NULL, member INTEGER NOT NULL,
                position INTEGER NOT NULL, PRIMARY KEY (owner, position)) WITHOUT ROWID;
            INSERT INTO "_order_Invoice_lineItems" (owner, member, position) SELECT _pk, _pk, 0 FROM "Invoice";
            CREATE INDEX "LineItem_invoice" ON "LineItem"("invoice");
            ALTER TABLE "Invoice" DROP COLUMN "amount";
            ALTER TABLE "Invoice" DROP COLUMN "purchaseOrder";
            INSERT INTO _og_sequence (entity, max) SELECT 'LineItem', MAX(_pk) FROM "Invoice";
            COMMIT;
            """, in: db)
    }

    static func execute(_ sql: String, in db: OpaquePointer) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            defer { sqlite3_free(message) }
            throw BenchError(message.map { String(cString: $0) } ?? "SQL error")
        }
    }
}

/// What every column must leave: one line item per invoice, its unit price the invoice's
/// amount exactly, no amount column.
enum ResultCheck {
    static func verify(path: String, count: Int) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { throw BenchError("cannot open \(path)") }
        defer { sqlite3_close(db) }
        func text(_ sql: String) throws -> String {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { throw BenchError(String(cString: sqlite3_errmsg(db))) }
            defer { sqlite3_finalize(statement) }
            guard sqlite3_step(statement) == SQLITE_ROW, let value = sqlite3_column_text(statement, 0) else { return "" }
            return String(cString: value)
        }
        let lines = try text("SELECT COUNT(*) FROM LineItem")
        guard lines == String(count) else { throw BenchError("\(lines) line items, expected \(count)") }
        for n in [1, count / 2, count] {
            let price = try text("SELECT l.unitPrice FROM LineItem l JOIN Invoice i ON i._pk = l.invoice WHERE i.identifier = 'INV-\(n)'")
            guard price == VersionOneFile.amountText(of: n) else { throw BenchError("INV-\(n): unit price \(price)") }
        }
        guard try text("SELECT COUNT(*) FROM pragma_table_info('Invoice') WHERE name = 'amount'") == "0" else {
            throw BenchError("Invoice still has its amount column")
        }
    }
}
