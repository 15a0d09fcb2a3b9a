import CSQLiteBench
import Foundation

/// The baseline: the SQLite C API as a careful C programmer uses it. Every
/// statement is prepared once and reused (reset/bind/step); inserts and updates
/// run in one explicit transaction; reads run as single statements in
/// autocommit mode (each is its own implicit read transaction, as each request
/// of an app would be).
@MainActor
final class RawSQLiteWorkload: Workload {
    private let connection: SQLiteConnection
    private let insertClient: OpaquePointer
    private let insertInvoice: OpaquePointer
    private let selectAllInvoices: OpaquePointer
    private let selectInvoiceByPK: OpaquePointer
    private let updateNotes: OpaquePointer
    private let selectClientByPK: OpaquePointer
    private let selectInvoicesOfClient: OpaquePointer

    /// The invoice columns, in the order `readInvoice` reads them.
    private static let invoiceColumns = "pk, identifier, amount, currency, status, issueDate, dueDate, notes, client"

    init(path: String, create: Bool) throws {
        connection = try SQLiteConnection(path: path)
        for pragma in Schema.pragmas { try connection.execute(pragma) }
        if create { try connection.execute(Schema.createSQL) }
        let columns = Self.invoiceColumns
        insertClient = try connection.prepare(
            "INSERT INTO Client (name, email, city, country, createdAt) VALUES (?, ?, ?, ?, ?)")
        insertInvoice = try connection.prepare("""
            INSERT INTO Invoice (identifier, amount, currency, status, issueDate, dueDate, notes, client)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        selectAllInvoices = try connection.prepare("SELECT \(columns) FROM Invoice")
        selectInvoiceByPK = try connection.prepare("SELECT \(columns) FROM Invoice WHERE pk = ?")
        updateNotes = try connection.prepare("UPDATE Invoice SET notes = ? WHERE pk = ?")
        selectClientByPK = try connection.prepare(
            "SELECT pk, name, email, city, country, createdAt FROM Client WHERE pk = ?")
        selectInvoicesOfClient = try connection.prepare("SELECT \(columns) FROM Invoice WHERE client = ?")
    }

    func close() throws {
        for statement in [insertClient, insertInvoice, selectAllInvoices, selectInvoiceByPK,
                          updateNotes, selectClientByPK, selectInvoicesOfClient] {
            sqlite3_finalize(statement)
        }
        connection.close()
    }

    func discardCachedObjects() {}  // Nothing is cached above SQLite.

    // MARK: Step 1

    func insert(_ dataset: Dataset) throws {
        try inTransaction {
            for client in dataset.clients {
                bindText(insertClient, 1, client.name)
                bindText(insertClient, 2, client.email)
                bindText(insertClient, 3, client.city)
                bindText(insertClient, 4, client.country)
                sqlite3_bind_double(insertClient, 5, client.createdAt.timeIntervalSince1970)
                try stepDone(insertClient)
                // The pks the rest of the benchmark relies on.
                guard sqlite3_last_insert_rowid(connection.handle) == client.pk else {
                    throw SQLiteError(code: 0, message: "client \(client.pk) got another pk")
                }
            }
            for invoice in dataset.invoices {
                bindText(insertInvoice, 1, invoice.identifier)
                bindText(insertInvoice, 2, invoice.amount.description)
                bindText(insertInvoice, 3, invoice.currency.rawValue)
                bindText(insertInvoice, 4, invoice.status.rawValue)
                sqlite3_bind_double(insertInvoice, 5, invoice.issueDate.timeIntervalSince1970)
                sqlite3_bind_double(insertInvoice, 6, invoice.dueDate.timeIntervalSince1970)
                bindText(insertInvoice, 7, invoice.notes)
                sqlite3_bind_int64(insertInvoice, 8, invoice.client)
                try stepDone(insertInvoice)
                guard sqlite3_last_insert_rowid(connection.handle) == invoice.pk else {
                    throw SQLiteError(code: 0, message: "invoice \(invoice.pk) got another pk")
                }
            }
        }
    }

    // MARK: Step 2

    func fetchAllInvoices() throws -> InvoiceDigest {
        // Materialize the array first, as an app listing invoices would, then
        // read it: the same shape as GRDB's fetchAll.
        var invoices: [InvoiceData] = []
        defer { sqlite3_reset(selectAllInvoices) }
        while try stepRow(selectAllInvoices) {
            invoices.append(try readInvoice(selectAllInvoices))
        }
        var digest = InvoiceDigest()
        for invoice in invoices { digest.add(invoice) }
        return digest
    }

    // MARK: Step 3

    func fetchInvoices(ids: [Int64]) throws -> InvoiceDigest {
        var digest = InvoiceDigest()
        for id in ids {
            sqlite3_bind_int64(selectInvoiceByPK, 1, id)
            guard try stepRow(selectInvoiceByPK) else {
                throw SQLiteError(code: 0, message: "no invoice \(id)")
            }
            let invoice = try readInvoice(selectInvoiceByPK)
            sqlite3_reset(selectInvoiceByPK)
            digest.add(invoice)
        }
        return digest
    }

    // MARK: Step 4

    func setNotes(_ notes: String, onInvoices ids: [Int64]) throws {
        // An UPDATE by key: raw SQL needs no read before writing. (The ORM
        // columns load each object first, as their users do.)
        try inTransaction {
            bindText(updateNotes, 1, notes)  // same value for every row: bind once
            for id in ids {
                sqlite3_bind_int64(updateNotes, 2, id)
                try stepDone(updateNotes)
                guard sqlite3_changes(connection.handle) == 1 else {
                    throw SQLiteError(code: 0, message: "no invoice \(id) to update")
                }
            }
        }
    }

    // MARK: Step 5

    func fetchInvoicesOfClients(_ clientIDs: [Int64]) throws -> InvoiceDigest {
        var digest = InvoiceDigest()
        for clientID in clientIDs {
            sqlite3_bind_int64(selectClientByPK, 1, clientID)
            guard try stepRow(selectClientByPK) else {
                throw SQLiteError(code: 0, message: "no client \(clientID)")
            }
            let client = ClientData(
                pk: sqlite3_column_int64(selectClientByPK, 0),
                name: columnText(selectClientByPK, 1) ?? "",
                email: columnText(selectClientByPK, 2),
                city: columnText(selectClientByPK, 3),
                country: columnText(selectClientByPK, 4),
                createdAt: Date(timeIntervalSince1970: sqlite3_column_double(selectClientByPK, 5)))
            sqlite3_reset(selectClientByPK)

            // The relationship is the foreign key: its invoices are the rows
            // whose `client` is the client's pk (served by Invoice_client).
            sqlite3_bind_int64(selectInvoicesOfClient, 1, client.pk)
            var invoices: [InvoiceData] = []
            while try stepRow(selectInvoicesOfClient) {
                invoices.append(try readInvoice(selectInvoicesOfClient))
            }
            sqlite3_reset(selectInvoicesOfClient)

            digest.add(client)
            for invoice in invoices { digest.add(invoice) }
        }
        return digest
    }

    // MARK: Helpers

    /// Reads a row of `invoiceColumns` into a struct.
    @inline(__always)
    private func readInvoice(_ statement: OpaquePointer) throws -> InvoiceData {
        guard let identifier = columnText(statement, 1),
              let amountText = columnText(statement, 2),
              let amount = Decimal(string: amountText),
              let currency = columnText(statement, 3).flatMap(Currency.init(rawValue:)),
              let status = columnText(statement, 4).flatMap(InvoiceStatus.init(rawValue:))
        else {
            throw SQLiteError(code: 0, message: "bad invoice row \(sqlite3_column_int64(statement, 0))")
        }
        return InvoiceData(
            pk: sqlite3_column_int64(statement, 0),
            identifier: identifier,
            amount: amount,
            currency: currency,
            status: status,
            issueDate: Date(timeIntervalSince1970: sqlite3_column_double(statement, 5)),
            dueDate: Date(timeIntervalSince1970: sqlite3_column_double(statement, 6)),
            notes: columnText(statement, 7),
            client: sqlite3_column_int64(statement, 8))
    }

    /// Steps a statement that returns no row, then resets it for reuse.
    @inline(__always)
    private func stepDone(_ statement: OpaquePointer) throws {
        let rc = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard rc == SQLITE_DONE else { throw connection.error(rc) }
    }

    /// Steps a query: true with a row, false when done. The caller resets.
    @inline(__always)
    private func stepRow(_ statement: OpaquePointer) throws -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let rc: throw connection.error(rc)
        }
    }

    private func inTransaction(_ body: () throws -> Void) throws {
        try connection.execute("BEGIN IMMEDIATE")
        do {
            try body()
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }
}
