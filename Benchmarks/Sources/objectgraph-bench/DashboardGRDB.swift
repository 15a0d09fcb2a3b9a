import Foundation
import GRDB

// The dashboard's model through GRDB at its best (see Seed002GRDB.swift). Decimal through
// GRDB's own Decimal support (TEXT), dates stored as REAL (GRDB's default Date encoding is
// TEXT, so they are read as Doubles), enumerations as their raw value.

extension Currency: DatabaseValueConvertible {}
extension InvoiceStatus: DatabaseValueConvertible {}

struct GRDBDashboardClient: FetchableRecord {
    static let byKey = "SELECT pk, name, email, city, country, createdAt FROM Client WHERE pk = ?"
    var pk: Int64
    var name: String
    var email, city, country: String?
    var createdAt: Date

    init(row: Row) throws {
        pk = row[0]; name = row[1]; email = row[2]; city = row[3]; country = row[4]
        createdAt = Date(timeIntervalSince1970: row[5])
    }

    func add(to digest: inout Digest) {
        Dashboard.Client.add(pk: pk, name: name, email: email, city: city, country: country, createdAt: createdAt,
                             to: &digest)
    }
}

struct GRDBDashboardInvoice: FetchableRecord {
    static let columns = "pk, identifier, amount, currency, status, issueDate, dueDate, notes, client"
    static let all = "SELECT \(columns) FROM Invoice"
    static let byKey = "SELECT \(columns) FROM Invoice WHERE pk = ?"
    static let ofClient = "SELECT \(columns) FROM Invoice WHERE client = ?"
    var pk: Int64
    var identifier: String
    var amount: Decimal
    var currency: Currency
    var status: InvoiceStatus
    var issueDate, dueDate: Date
    var notes: String?
    var client: Int64

    init(row: Row) throws {
        pk = row[0]; identifier = row[1]; amount = row[2]; currency = row[3]; status = row[4]
        issueDate = Date(timeIntervalSince1970: row[5]); dueDate = Date(timeIntervalSince1970: row[6])
        notes = row[7]; client = row[8]
    }

    func add(to digest: inout Digest) {
        Dashboard.Invoice.add(pk: pk, identifier: identifier, amount: amount, currency: currency, status: status,
                              issueDate: issueDate, dueDate: dueDate, notes: notes, client: client, to: &digest)
    }
}

@MainActor
final class DashboardGRDB: Workload {
    typealias Model = Dashboard
    private let pool: DatabasePool

    init(path: String, create: Bool) throws {
        pool = try DatabasePool(path: path)
        if create { try pool.write { db in try db.execute(sql: Dashboard.createSQL) } }
    }

    func close() throws { try pool.close() }

    func discardCachedObjects() {}

    func finishWrites() throws { _ = try pool.writeWithoutTransaction { try $0.checkpoint(.passive) } }

    func insert(_ dataset: Dataset<Dashboard>) throws {
        try pool.write { db in
            let client = try db.cachedStatement(sql: """
                INSERT INTO Client (name, email, city, country, createdAt) VALUES (?, ?, ?, ?, ?)
                """)
            for c in dataset.clients {
                client.setUncheckedArguments([c.name, c.email, c.city, c.country, c.createdAt.timeIntervalSince1970])
                try client.execute()
                guard db.lastInsertedRowID == c.pk else { throw HarnessError("client \(c.pk) got another pk") }
            }
            let invoice = try db.cachedStatement(sql: """
                INSERT INTO Invoice (identifier, amount, currency, status, issueDate, dueDate, notes, client)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for i in dataset.invoices {
                invoice.setUncheckedArguments([
                    i.identifier, i.amount, i.currency, i.status, i.issueDate.timeIntervalSince1970,
                    i.dueDate.timeIntervalSince1970, i.notes, i.client])
                try invoice.execute()
                guard db.lastInsertedRowID == i.pk else { throw HarnessError("invoice \(i.pk) got another pk") }
            }
        }
    }

    func fetchAllInvoices() throws -> Digest {
        let invoices = try pool.read { db in try GRDBDashboardInvoice.fetchAll(db.cachedStatement(sql: GRDBDashboardInvoice.all)) }
        var digest = Digest()
        for invoice in invoices { invoice.add(to: &digest) }
        return digest
    }

    func fetchInvoices(keys: [Int64]) throws -> Digest {
        var digest = Digest()
        for key in keys {
            let invoice = try pool.read { db in
                try GRDBDashboardInvoice.fetchOne(db.cachedStatement(sql: GRDBDashboardInvoice.byKey), arguments: [key])
            }
            guard let invoice else { throw HarnessError("no invoice \(key)") }
            invoice.add(to: &digest)
        }
        return digest
    }

    func update(_ update: Dashboard.Update, invoices keys: [Int64]) throws {
        try pool.write { db in
            let select = try db.cachedStatement(sql: GRDBDashboardInvoice.byKey)
            let write = try db.cachedStatement(sql: "UPDATE Invoice SET notes = ?, dueDate = ? WHERE pk = ?")
            for key in keys {
                guard var invoice = try GRDBDashboardInvoice.fetchOne(select, arguments: [key]) else {
                    throw HarnessError("no invoice \(key)")
                }
                invoice.notes = update.notes
                invoice.dueDate = update.dueDate
                write.setUncheckedArguments([invoice.notes, invoice.dueDate.timeIntervalSince1970, invoice.pk])
                try write.execute()
            }
        }
    }

    func fetchInvoicesOfClients(_ keys: [Int64]) throws -> Digest {
        var digest = Digest()
        for key in keys {
            let (client, invoices) = try pool.read { db in
                guard let client = try GRDBDashboardClient.fetchOne(
                    db.cachedStatement(sql: GRDBDashboardClient.byKey), arguments: [key])
                else { throw HarnessError("no client \(key)") }
                let invoices = try GRDBDashboardInvoice.fetchAll(
                    db.cachedStatement(sql: GRDBDashboardInvoice.ofClient), arguments: [client.pk])
                return (client, invoices)
            }
            client.add(to: &digest)
            for invoice in invoices { invoice.add(to: &digest) }
        }
        return digest
    }
}
