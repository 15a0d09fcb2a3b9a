import Foundation
import ObjectGraph

extension InvoiceStatus: AttributeValue {}
extension Currency: AttributeValue {}

enum DashboardEntities {
    final class Client: ManagedObject {
        @Attribute var name: String
        @Attribute(.unique) var email: String?
        @Attribute var city: String?
        @Attribute var country: String?
        @Attribute var createdAt: Date?
        @Relationship(inverse: \Invoice.client) var invoices: Set<Invoice>
    }

    final class Invoice: ManagedObject {
        @Attribute(.unique) var identifier: String
        @Attribute var amount: Decimal
        @Attribute var currency: Currency = .eur
        @Attribute var status: InvoiceStatus = .draft
        @Attribute var issueDate: Date?
        @Attribute var dueDate: Date?
        @Attribute var notes: String?
        @Relationship var client: Client?
    }
}

/// The dashboard's model through ObjectGraph, written as in `Seed002ObjectGraph`.
@MainActor
final class DashboardObjectGraph: Workload {
    typealias Model = Dashboard
    typealias Client = DashboardEntities.Client
    typealias Invoice = DashboardEntities.Invoice
    private let coordinator: PersistentStoreCoordinator
    private var context: ManagedObjectContext

    init(path: String, create: Bool) throws {
        let model = try ManagedObjectModel(entities: [Client.self, Invoice.self])
        coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(.sqlite(at: URL(fileURLWithPath: path)))
        context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
    }

    func close() {}

    func finishWrites() throws { try coordinator.checkpoint() }

    func discardCachedObjects() {
        context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
    }

    func insert(_ dataset: Dataset<Dashboard>) throws {
        let context = self.context
        try context.performAndWait {
            var clients: [Client] = []
            clients.reserveCapacity(dataset.clients.count)
            for data in dataset.clients {
                let client = Client(context: context)
                client.name = data.name
                client.email = data.email
                client.city = data.city
                client.country = data.country
                client.createdAt = data.createdAt
                clients.append(client)
            }
            for data in dataset.invoices {
                let invoice = Invoice(context: context)
                invoice.identifier = data.identifier
                invoice.amount = data.amount
                invoice.currency = data.currency
                invoice.status = data.status
                invoice.issueDate = data.issueDate
                invoice.dueDate = data.dueDate
                invoice.notes = data.notes
                invoice.client = clients[Int(data.client) - 1]
            }
            try context.save()
        }
    }

    private func add(_ invoice: Invoice, to digest: inout Digest) throws {
        Dashboard.Invoice.add(
            pk: invoice.objectID.primaryKey ?? 0, identifier: invoice.identifier, amount: invoice.amount,
            currency: invoice.currency, status: invoice.status, issueDate: invoice.issueDate ?? .distantPast,
            dueDate: invoice.dueDate ?? .distantPast, notes: invoice.notes,
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

    func update(_ update: Dashboard.Update, invoices keys: [Int64]) throws {
        let (context, coordinator) = (self.context, self.coordinator)
        try context.performAndWait {
            for key in keys {
                guard let id = coordinator.managedObjectID(for: Invoice.self, primaryKey: key) else { continue }
                let invoice = try context.existingObject(with: id, as: Invoice.self)
                invoice.notes = update.notes
                invoice.dueDate = update.dueDate
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
                Dashboard.Client.add(pk: client.objectID.primaryKey ?? 0, name: client.name, email: client.email,
                                     city: client.city, country: client.country,
                                     createdAt: client.createdAt ?? .distantPast, to: &digest)
                for invoice in client.invoices { try add(invoice, to: &digest) }
            }
            return digest
        }
    }
}
