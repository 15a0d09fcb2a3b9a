import CSQLiteBench
import Foundation

/// The dashboard's model through the SQLite C API at its best (see `Seed002Raw`): Decimal
/// amounts parsed from TEXT with `Decimal(string:)`, dates from REAL, enumerations from TEXT.
@MainActor
final class DashboardRaw: Workload {
    typealias Model = Dashboard
    private let connection: SQLiteConnection
    private let statements: RawStatements

    private static let invoiceColumns = "pk, identifier, amount, currency, status, issueDate, dueDate, notes, client"

    init(path: String, create: Bool) throws {
        connection = try SQLiteConnection(path: path)
        try connection.applyPragmas()
        if create { try connection.execute(Dashboard.createSQL) }
        let c = Self.invoiceColumns
        statements = try RawStatements(connection, [
            "insertClient": "INSERT INTO Client (name, email, city, country, createdAt) VALUES (?, ?, ?, ?, ?)",
            "insertInvoice": """
                INSERT INTO Invoice (identifier, amount, currency, status, issueDate, dueDate, notes, client)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            "all": "SELECT \(c) FROM Invoice",
            "byKey": "SELECT \(c) FROM Invoice WHERE pk = ?",
            "update": "UPDATE Invoice SET notes = ?, dueDate = ? WHERE pk = ?",
            "client": "SELECT pk, name, email, city, country, createdAt FROM Client WHERE pk = ?",
            "ofClient": "SELECT \(c) FROM Invoice WHERE client = ?",
        ])
    }

    func close() throws {
        statements.finalize()
        connection.close()
    }

    func discardCachedObjects() {}

    func finishWrites() throws { try connection.execute("PRAGMA wal_checkpoint(PASSIVE)") }

    func insert(_ dataset: Dataset<Dashboard>) throws {
        let client = statements["insertClient"], invoice = statements["insertInvoice"]
        try connection.inTransaction {
            for c in dataset.clients {
                bindText(client, 1, c.name); bindText(client, 2, c.email); bindText(client, 3, c.city)
                bindText(client, 4, c.country)
                sqlite3_bind_double(client, 5, c.createdAt.timeIntervalSince1970)
                try connection.stepDone(client)
                try connection.expectLastRowID(c.pk)
            }
            for i in dataset.invoices {
                bindText(invoice, 1, i.identifier)
                bindText(invoice, 2, i.amount.description)
                bindText(invoice, 3, i.currency.rawValue)
                bindText(invoice, 4, i.status.rawValue)
                sqlite3_bind_double(invoice, 5, i.issueDate.timeIntervalSince1970)
                sqlite3_bind_double(invoice, 6, i.dueDate.timeIntervalSince1970)
                bindText(invoice, 7, i.notes)
                sqlite3_bind_int64(invoice, 8, i.client)
                try connection.stepDone(invoice)
                try connection.expectLastRowID(i.pk)
            }
        }
    }

    func fetchAllInvoices() throws -> Digest {
        let statement = statements["all"]
        defer { sqlite3_reset(statement) }
        var invoices: [Dashboard.Invoice] = []
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

    func update(_ update: Dashboard.Update, invoices keys: [Int64]) throws {
        let statement = statements["update"]
        try connection.inTransaction {
            bindText(statement, 1, update.notes)
            sqlite3_bind_double(statement, 2, update.dueDate.timeIntervalSince1970)
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
            let client = Dashboard.Client(
                pk: sqlite3_column_int64(s, 0), name: columnText(s, 1) ?? "", email: columnText(s, 2),
                city: columnText(s, 3), country: columnText(s, 4),
                createdAt: Date(timeIntervalSince1970: sqlite3_column_double(s, 5)))
            sqlite3_reset(clientStatement)
            sqlite3_bind_int64(invoicesStatement, 1, client.pk)
            var invoices: [Dashboard.Invoice] = []
            while try connection.stepRow(invoicesStatement) { invoices.append(try readInvoice(invoicesStatement)) }
            sqlite3_reset(invoicesStatement)
            client.add(to: &digest)
            for invoice in invoices { invoice.add(to: &digest) }
        }
        return digest
    }

    @inline(__always)
    private func readInvoice(_ s: OpaquePointer) throws -> Dashboard.Invoice {
        guard let identifier = columnText(s, 1),
              let amountText = columnText(s, 2), let amount = Decimal(string: amountText),
              let currency = columnText(s, 3).flatMap(Currency.init(rawValue:)),
              let status = columnText(s, 4).flatMap(InvoiceStatus.init(rawValue:))
        else { throw HarnessError("bad invoice row \(sqlite3_column_int64(s, 0))") }
        return Dashboard.Invoice(
            pk: sqlite3_column_int64(s, 0), identifier: identifier, amount: amount, currency: currency, status: status,
            issueDate: Date(timeIntervalSince1970: sqlite3_column_double(s, 5)),
            dueDate: Date(timeIntervalSince1970: sqlite3_column_double(s, 6)),
            notes: columnText(s, 7), client: sqlite3_column_int64(s, 8))
    }
}
