import Foundation
import ObjectGraph

// ObjectGraph as its users write it: entity classes declared once, a coordinator on the
// file, a private-queue context, `performAndWait` blocks, fetch requests, look-ups by ID and
// relationship traversal. The classes are nested so both models' entities can be named
// Client and Invoice (an entity's table is its class name).

enum Seed002Entities {
    final class Client: ManagedObject {
        @Attribute var city: String
        @Attribute var country: String
        @Attribute var email: String
        @Attribute var name: String
        @Attribute var number: String
        @Attribute var street: String
        @Attribute var zip: String
        @Relationship(inverse: \Invoice.client) var invoices: Set<Invoice>
    }

    final class Invoice: ManagedObject {
        @Attribute var amount: Double
        @Attribute var currency: String
        @Attribute var identifier: String
        @Attribute var notes: String?
        @Relationship var client: Client?
    }
}

@MainActor
final class Seed002ObjectGraph: Workload {
    typealias Model = Seed002
    typealias Client = Seed002Entities.Client
    typealias Invoice = Seed002Entities.Invoice
    private let coordinator: PersistentStoreCoordinator
    private var context: ManagedObjectContext

    convenience init(path: String, create: Bool) throws {
        let coordinator = PersistentStoreCoordinator(model: try Self.model())
        try coordinator.addPersistentStore(.sqlite(at: URL(fileURLWithPath: path)))
        self.init(coordinator: coordinator)
    }

    /// On a coordinator whose store is added (SQLite here; PostgreSQL in +PostgreSQL.swift).
    init(coordinator: PersistentStoreCoordinator) {
        self.coordinator = coordinator
        context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
    }

    static func model() throws -> ManagedObjectModel { try ManagedObjectModel(entities: [Client.self, Invoice.self]) }

    func close() {}

    func finishWrites() throws { try coordinator.checkpoint() }

    func discardCachedObjects() {
        context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
    }

    func insert(_ dataset: Dataset<Seed002>) throws {
        let context = self.context
        try context.performAndWait {
            var clients: [Client] = []
            clients.reserveCapacity(dataset.clients.count)
            for data in dataset.clients {
                let client = Client(context: context)
                client.city = data.city
                client.country = data.country
                client.email = data.email
                client.name = data.name
                client.number = data.number
                client.street = data.street
                client.zip = data.zip
                clients.append(client)
            }
            for data in dataset.invoices {
                let invoice = Invoice(context: context)
                invoice.amount = data.amount
                invoice.currency = data.currency
                invoice.identifier = data.identifier
                invoice.notes = data.notes
                invoice.client = clients[Int(data.client) - 1]
            }
            try context.save()
        }
    }

    private func add(_ invoice: Invoice, to digest: inout Digest) throws {
        Seed002.Invoice.add(
            pk: invoice.objectID.primaryKey ?? 0, amount: invoice.amount, currency: invoice.currency,
            identifier: invoice.identifier, notes: invoice.notes,
            client: try invoice.objectIDs(forRelationshipNamed: "client").first?.primaryKey ?? 0, to: &digest)
    }

    func fetchAllInvoices() throws -> Digest {
        let context = self.context
        return try context.performAndWait {
            var digest = Digest()
            for invoice in try context.fetch(FetchRequest<Invoice>()) { try add(invoice, to: &digest) }
            return digest
        }
    }

    func fetchInvoices(keys: [Int64]) throws -> Digest {
        let (context, coordinator) = (self.context, self.coordinator)
        return try context.performAndWait {
            var digest = Digest()
            for key in keys {
                guard let id = coordinator.managedObjectID(for: Invoice.self, primaryKey: key) else { continue }
                try add(try context.existingObject(with: id, as: Invoice.self), to: &digest)
            }
            return digest
        }
    }

    func update(_ update: Seed002.Update, invoices keys: [Int64]) throws {
        let (context, coordinator) = (self.context, self.coordinator)
        try context.performAndWait {
            for key in keys {
                guard let id = coordinator.managedObjectID(for: Invoice.self, primaryKey: key) else { continue }
                let invoice = try context.existingObject(with: id, as: Invoice.self)
                invoice.notes = update.notes
                invoice.amount = update.amount
            }
            try context.save()
        }
    }

    func fetchInvoicesOfClients(_ keys: [Int64]) throws -> Digest {
        let (context, coordinator) = (self.context, self.coordinator)
        return try context.performAndWait {
            var digest = Digest()
            for key in keys {
                guard let id = coordinator.managedObjectID(for: Client.self, primaryKey: key) else { continue }
                let client = try context.existingObject(with: id, as: Client.self)
                digest.addClient(pk: client.objectID.primaryKey ?? 0)
                Seed002.Client.addAttributes(city: client.city, country: client.country, email: client.email,
                                             name: client.name, number: client.number, street: client.street,
                                             zip: client.zip, to: &digest)
                for invoice in client.invoices { try add(invoice, to: &digest) }
            }
            return digest
        }
    }
}
