import Foundation
import GRDB

// GRDB at its best documented use: a DatabasePool (WAL, synchronous=NORMAL), records whose
// `init(row:)` reads columns by index, and every statement through `cachedStatement` (compiled
// once per connection, never per call).

struct GRDBSeed002Client: FetchableRecord {
    static let columns = "pk, city, country, email, name, number, street, zip"
    static let byKey = "SELECT \(columns) FROM Client WHERE pk = ?"
    var pk: Int64
    var city, country, email, name, number, street, zip: String

    init(row: Row) throws {
        pk = row[0]; city = row[1]; country = row[2]; email = row[3]
        name = row[4]; number = row[5]; street = row[6]; zip = row[7]
    }

    func add(to digest: inout Digest) {
        digest.addClient(pk: pk)
        Seed002.Client.addAttributes(city: city, country: country, email: email, name: name, number: number,
                                     street: street, zip: zip, to: &digest)
    }
}

struct GRDBSeed002Invoice: FetchableRecord {
    static let columns = "pk, amount, currency, identifier, notes, client"
    static let all = "SELECT \(columns) FROM Invoice"
    static let byKey = "SELECT \(columns) FROM Invoice WHERE pk = ?"
    static let ofClient = "SELECT \(columns) FROM Invoice WHERE client = ?"
    var pk: Int64
    var amount: Double
    var currency: String
    var identifier: String
    var notes: String?
    var client: Int64

    init(row: Row) throws {
        pk = row[0]; amount = row[1]; currency = row[2]; identifier = row[3]; notes = row[4]; client = row[5]
    }

    func add(to digest: inout Digest) {
        Seed002.Invoice.add(pk: pk, amount: amount, currency: currency, identifier: identifier, notes: notes,
                            client: client, to: &digest)
    }
}

@MainActor
final class Seed002GRDB: Workload {
    typealias Model = Seed002
    private let pool: DatabasePool

    init(path: String, create: Bool) throws {
        pool = try DatabasePool(path: path)
        if create { try pool.write { db in try db.execute(sql: Seed002.createSQL) } }
    }

    func close() throws { try pool.close() }

    func discardCachedObjects() {}  // Records are values; GRDB caches none.

    func finishWrites() throws { _ = try pool.writeWithoutTransaction { try $0.checkpoint(.passive) } }

    func insert(_ dataset: Dataset<Seed002>) throws {
        try pool.write { db in
            let client = try db.cachedStatement(sql: """
                INSERT INTO Client (city, country, email, name, number, street, zip) VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            for c in dataset.clients {
                client.setUncheckedArguments([c.city, c.country, c.email, c.name, c.number, c.street, c.zip])
                try client.execute()
                guard db.lastInsertedRowID == c.pk else { throw HarnessError("client \(c.pk) got another pk") }
            }
            let invoice = try db.cachedStatement(sql: """
                INSERT INTO Invoice (amount, currency, identifier, notes, client) VALUES (?, ?, ?, ?, ?)
                """)
            for i in dataset.invoices {
                invoice.setUncheckedArguments([i.amount, i.currency, i.identifier, i.notes, i.client])
                try invoice.execute()
                guard db.lastInsertedRowID == i.pk else { throw HarnessError("invoice \(i.pk) got another pk") }
            }
        }
    }

    func fetchAllInvoices() throws -> Digest {
        let invoices = try pool.read { db in
            try GRDBSeed002Invoice.fetchAll(db.cachedStatement(sql: GRDBSeed002Invoice.all))
        }
        var digest = Digest()
        for invoice in invoices { invoice.add(to: &digest) }
        return digest
    }

    /// One `read` per invoice, as one request of an app would do.
    func fetchInvoices(keys: [Int64]) throws -> Digest {
        var digest = Digest()
        for key in keys {
            let invoice = try pool.read { db in
                try GRDBSeed002Invoice.fetchOne(
                    db.cachedStatement(sql: GRDBSeed002Invoice.byKey),
                    arguments: [key])
            }
            guard let invoice else { throw HarnessError("no invoice \(key)") }
            invoice.add(to: &digest)
        }
        return digest
    }

    /// Each record loaded, changed, and written back, in one transaction.
    func update(_ update: Seed002.Update, invoices keys: [Int64]) throws {
        try pool.write { db in
            let select = try db.cachedStatement(sql: GRDBSeed002Invoice.byKey)
            let write = try db.cachedStatement(sql: "UPDATE Invoice SET notes = ?, amount = ? WHERE pk = ?")
            for key in keys {
                guard var invoice = try GRDBSeed002Invoice.fetchOne(select, arguments: [key]) else {
                    throw HarnessError("no invoice \(key)")
                }
                invoice.notes = update.notes
                invoice.amount = update.amount
                write.setUncheckedArguments([invoice.notes, invoice.amount, invoice.pk])
                try write.execute()
            }
        }
    }

    /// One `read` per client: the client, then its invoices by the foreign key.
    func fetchInvoicesOfClients(_ keys: [Int64]) throws -> Digest {
        var digest = Digest()
        for key in keys {
            let (client, invoices) = try pool.read { db in
                guard let client = try GRDBSeed002Client.fetchOne(
                    db.cachedStatement(sql: GRDBSeed002Client.byKey),
                    arguments: [key]) else { throw HarnessError("no client \(key)") }
                let invoices = try GRDBSeed002Invoice.fetchAll(
                    db.cachedStatement(sql: GRDBSeed002Invoice.ofClient),
                    arguments: [client.pk])
                return (client, invoices)
            }
            client.add(to: &digest)
            for invoice in invoices { invoice.add(to: &digest) }
        }
        return digest
    }
}
