import Foundation
import GRDB

// GRDB as a typical user writes it: record structs, a DatabaseQueue, the query
// interface, an association for the relationship. Records decode by column
// name in a hand-written `init(row:)`, GRDB's fastest idiomatic form (Codable
// records would make this column slower, and the goal "no slower than GRDB"
// easier); hand-written also because the schema stores dates as REAL, which
// GRDB's default Date encoding (TEXT) would not.

// Enums stored as their raw value: GRDB's RawRepresentable support.
extension Currency: DatabaseValueConvertible {}
extension InvoiceStatus: DatabaseValueConvertible {}

/// A client record. `MutablePersistableRecord` (the mutating variant of
/// `PersistableRecord`) because the pk is auto-assigned: `didInsert` grabs it,
/// as GRDB's documentation does for auto-incremented ids.
struct GRDBClient: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "Client"
    static let invoices = hasMany(GRDBInvoice.self, using: ForeignKey(["client"]))

    enum Columns {
        static let pk = Column("pk")
        static let name = Column("name")
        static let email = Column("email")
        static let city = Column("city")
        static let country = Column("country")
        static let createdAt = Column("createdAt")
    }

    var pk: Int64?
    var name: String
    var email: String?
    var city: String?
    var country: String?
    var createdAt: Date

    var invoices: QueryInterfaceRequest<GRDBInvoice> { request(for: Self.invoices) }

    init(_ data: ClientData) {
        (name, email, city, country, createdAt) = (data.name, data.email, data.city, data.country, data.createdAt)
    }

    init(row: Row) throws {
        pk = row[Columns.pk]
        name = row[Columns.name]
        email = row[Columns.email]
        city = row[Columns.city]
        country = row[Columns.country]
        createdAt = Date(timeIntervalSince1970: row[Columns.createdAt])
    }

    func encode(to container: inout PersistenceContainer) throws {
        container[Columns.pk] = pk
        container[Columns.name] = name
        container[Columns.email] = email
        container[Columns.city] = city
        container[Columns.country] = country
        container[Columns.createdAt] = createdAt.timeIntervalSince1970
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        pk = inserted.rowID
    }
}

struct GRDBInvoice: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "Invoice"
    static let client = belongsTo(GRDBClient.self, using: ForeignKey(["client"]))

    enum Columns {
        static let pk = Column("pk")
        static let identifier = Column("identifier")
        static let amount = Column("amount")
        static let currency = Column("currency")
        static let status = Column("status")
        static let issueDate = Column("issueDate")
        static let dueDate = Column("dueDate")
        static let notes = Column("notes")
        static let client = Column("client")
    }

    var pk: Int64?
    var identifier: String
    var amount: Decimal  // TEXT through GRDB's Decimal support
    var currency: Currency
    var status: InvoiceStatus
    var issueDate: Date
    var dueDate: Date
    var notes: String?
    var client: Int64

    init(_ data: InvoiceData) {
        identifier = data.identifier
        amount = data.amount
        currency = data.currency
        status = data.status
        issueDate = data.issueDate
        dueDate = data.dueDate
        notes = data.notes
        client = data.client
    }

    init(row: Row) throws {
        pk = row[Columns.pk]
        identifier = row[Columns.identifier]
        amount = row[Columns.amount]
        currency = row[Columns.currency]
        status = row[Columns.status]
        issueDate = Date(timeIntervalSince1970: row[Columns.issueDate])
        dueDate = Date(timeIntervalSince1970: row[Columns.dueDate])
        notes = row[Columns.notes]
        client = row[Columns.client]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container[Columns.pk] = pk
        container[Columns.identifier] = identifier
        container[Columns.amount] = amount
        container[Columns.currency] = currency
        container[Columns.status] = status
        container[Columns.issueDate] = issueDate.timeIntervalSince1970
        container[Columns.dueDate] = dueDate.timeIntervalSince1970
        container[Columns.notes] = notes
        container[Columns.client] = client
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        pk = inserted.rowID
    }
}

extension InvoiceDigest {
    mutating func add(_ invoice: GRDBInvoice) {
        addInvoice(
            pk: invoice.pk ?? 0, identifier: invoice.identifier, amount: invoice.amount,
            currency: invoice.currency, status: invoice.status, issueDate: invoice.issueDate,
            dueDate: invoice.dueDate, notes: invoice.notes, client: invoice.client)
    }

    mutating func add(_ client: GRDBClient) {
        addClient(pk: client.pk ?? 0, name: client.name, email: client.email, city: client.city, country: client.country)
    }
}

struct GRDBWorkloadError: Error, CustomStringConvertible {
    let description: String
}

@MainActor
final class GRDBWorkload: Workload {
    private let dbQueue: DatabaseQueue

    init(path: String, create: Bool) throws {
        var config = Configuration()
        // GRDB's own way to get the shared pragmas: .wal sets journal_mode=WAL
        // and synchronous=NORMAL; foreign_keys=ON is GRDB's default.
        config.journalMode = .wal
        dbQueue = try DatabaseQueue(path: path, configuration: config)
        if create {
            // The shared DDL rather than GRDB's table builder, so every file has
            // byte-for-byte the same schema.
            try dbQueue.write { db in try db.execute(sql: Schema.createSQL) }
        }
    }

    func close() throws {
        try dbQueue.close()
    }

    func discardCachedObjects() {}  // Records are values; GRDB caches none.

    // Step 1: one `write` is one transaction.
    func insert(_ dataset: Dataset) throws {
        try dbQueue.write { db in
            for data in dataset.clients {
                var client = GRDBClient(data)
                try client.insert(db)
                guard client.pk == data.pk else {
                    throw GRDBWorkloadError(description: "client \(data.pk) got pk \(client.pk ?? 0)")
                }
            }
            for data in dataset.invoices {
                var invoice = GRDBInvoice(data)
                try invoice.insert(db)
                guard invoice.pk == data.pk else {
                    throw GRDBWorkloadError(description: "invoice \(data.pk) got pk \(invoice.pk ?? 0)")
                }
            }
        }
    }

    // Step 2.
    func fetchAllInvoices() throws -> InvoiceDigest {
        let invoices = try dbQueue.read { db in try GRDBInvoice.fetchAll(db) }
        var digest = InvoiceDigest()
        for invoice in invoices { digest.add(invoice) }
        return digest
    }

    // Step 3: one `read` per invoice, as one request of an app would do.
    func fetchInvoices(ids: [Int64]) throws -> InvoiceDigest {
        var digest = InvoiceDigest()
        for id in ids {
            let invoice = try dbQueue.read { db in try GRDBInvoice.fetchOne(db, key: id) }
            guard let invoice else { throw GRDBWorkloadError(description: "no invoice \(id)") }
            digest.add(invoice)
        }
        return digest
    }

    // Step 4: load, modify, save the changed column only (`updateChanges`
    // writes `UPDATE Invoice SET notes = ? WHERE pk = ?`).
    func setNotes(_ notes: String, onInvoices ids: [Int64]) throws {
        try dbQueue.write { db in
            for id in ids {
                guard var invoice = try GRDBInvoice.fetchOne(db, key: id) else {
                    throw GRDBWorkloadError(description: "no invoice \(id)")
                }
                try invoice.updateChanges(db) { $0.notes = notes }
            }
        }
    }

    // Step 5: one `read` per client: the client, then its invoices through the
    // hasMany association.
    func fetchInvoicesOfClients(_ clientIDs: [Int64]) throws -> InvoiceDigest {
        var digest = InvoiceDigest()
        for clientID in clientIDs {
            let (client, invoices) = try dbQueue.read { db in
                guard let client = try GRDBClient.fetchOne(db, key: clientID) else {
                    throw GRDBWorkloadError(description: "no client \(clientID)")
                }
                return (client, try client.invoices.fetchAll(db))
            }
            digest.add(client)
            for invoice in invoices { digest.add(invoice) }
        }
        return digest
    }
}
