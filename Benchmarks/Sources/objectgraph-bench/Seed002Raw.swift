import CSQLiteBench
import Foundation

/// Seed 002's model through the SQLite C API as a careful C programmer uses it: every
/// statement prepared once and reused, `sqlite3_column_*` into structs, writes in one
/// explicit transaction, reads in autocommit (each its own read transaction, as each request
/// of an app would be).
@MainActor
final class Seed002Raw: Workload {
    typealias Model = Seed002
    private let connection: SQLiteConnection
    private let statements: RawStatements

    private static let invoiceColumns = "pk, amount, currency, identifier, notes, client"
    private static let clientColumns = "pk, city, country, email, name, number, street, zip"

    init(path: String, create: Bool) throws {
        connection = try SQLiteConnection(path: path)
        try connection.applyPragmas()
        if create { try connection.execute(Seed002.createSQL) }
        let c = Self.invoiceColumns
        statements = try RawStatements(connection, [
            "insertClient": "INSERT INTO Client (city, country, email, name, number, street, zip) VALUES (?, ?, ?, ?, ?, ?, ?)",
            "insertInvoice": "INSERT INTO Invoice (amount, currency, identifier, notes, client) VALUES (?, ?, ?, ?, ?)",
            "all": "SELECT \(c) FROM Invoice",
            "byKey": "SELECT \(c) FROM Invoice WHERE pk = ?",
            "update": "UPDATE Invoice SET notes = ?, amount = ? WHERE pk = ?",
            "client": "SELECT \(Self.clientColumns) FROM Client WHERE pk = ?",
            "ofClient": "SELECT \(c) FROM Invoice WHERE client = ?",
        ])
    }

    func close() throws {
        statements.finalize()
        connection.close()
    }

    func discardCachedObjects() {}  // Nothing is cached above SQLite.

    func finishWrites() throws { try connection.execute("PRAGMA wal_checkpoint(PASSIVE)") }

    func insert(_ dataset: Dataset<Seed002>) throws {
        let client = statements["insertClient"], invoice = statements["insertInvoice"]
        try connection.inTransaction {
            for c in dataset.clients {
                bindText(client, 1, c.city); bindText(client, 2, c.country); bindText(client, 3, c.email)
                bindText(client, 4, c.name); bindText(client, 5, c.number); bindText(client, 6, c.street)
                bindText(client, 7, c.zip)
                try connection.stepDone(client)
                try connection.expectLastRowID(c.pk)
            }
            for i in dataset.invoices {
                sqlite3_bind_double(invoice, 1, i.amount)
                bindText(invoice, 2, i.currency); bindText(invoice, 3, i.identifier); bindText(invoice, 4, i.notes)
                sqlite3_bind_int64(invoice, 5, i.client)
                try connection.stepDone(invoice)
                try connection.expectLastRowID(i.pk)
            }
        }
    }

    func fetchAllInvoices() throws -> Digest {
        // Materialized first, as an app listing invoices would, then read.
        let statement = statements["all"]
        defer { sqlite3_reset(statement) }
        var invoices: [Seed002.Invoice] = []
        while try connection.stepRow(statement) { invoices.append(try readInvoice(statement)) }
        var digest = Digest()
        for invoice in invoices { invoice.add(to: &digest) }
        return digest
    }

    func fetchInvoices(keys: [Int64]) throws -> Digest {
        let statement = statements["byKey"]
        var digest = Digest()
        for key in keys {
            sqlite3_bind_int64(statement, 1, key)
            guard try connection.stepRow(statement) else { throw HarnessError("no invoice \(key)") }
            let invoice = try readInvoice(statement)
            sqlite3_reset(statement)
            invoice.add(to: &digest)
        }
        return digest
    }

    /// An UPDATE by key: raw SQL needs no read before writing (the object engines load each
    /// invoice first, as their users do).
    func update(_ update: Seed002.Update, invoices keys: [Int64]) throws {
        let statement = statements["update"]
        try connection.inTransaction {
            bindText(statement, 1, update.notes)
            sqlite3_bind_double(statement, 2, update.amount)
            for key in keys {
                sqlite3_bind_int64(statement, 3, key)
                try connection.stepDone(statement)
                guard sqlite3_changes(connection.handle) == 1 else { throw HarnessError("no invoice \(key) to update") }
            }
        }
    }

    func fetchInvoicesOfClients(_ keys: [Int64]) throws -> Digest {
        let clientStatement = statements["client"], invoicesStatement = statements["ofClient"]
        var digest = Digest()
        for key in keys {
            sqlite3_bind_int64(clientStatement, 1, key)
            guard try connection.stepRow(clientStatement) else { throw HarnessError("no client \(key)") }
            let s = clientStatement
            let client = Seed002.Client(
                pk: sqlite3_column_int64(s, 0), city: columnText(s, 1) ?? "", country: columnText(s, 2) ?? "",
                email: columnText(s, 3) ?? "", name: columnText(s, 4) ?? "", number: columnText(s, 5) ?? "",
                street: columnText(s, 6) ?? "", zip: columnText(s, 7) ?? "")
            sqlite3_reset(clientStatement)
            // The relationship is the foreign key, served by Invoice_client.
            sqlite3_bind_int64(invoicesStatement, 1, client.pk)
            var invoices: [Seed002.Invoice] = []
            while try connection.stepRow(invoicesStatement) { invoices.append(try readInvoice(invoicesStatement)) }
            sqlite3_reset(invoicesStatement)
            client.add(to: &digest)
            for invoice in invoices { invoice.add(to: &digest) }
        }
        return digest
    }

    @inline(__always)
    private func readInvoice(_ s: OpaquePointer) throws -> Seed002.Invoice {
        guard let currency = columnText(s, 2), let identifier = columnText(s, 3) else {
            throw HarnessError("bad invoice row \(sqlite3_column_int64(s, 0))")
        }
        return Seed002.Invoice(pk: sqlite3_column_int64(s, 0), amount: sqlite3_column_double(s, 1), currency: currency,
                               identifier: identifier, notes: columnText(s, 4), client: sqlite3_column_int64(s, 5))
    }
}
