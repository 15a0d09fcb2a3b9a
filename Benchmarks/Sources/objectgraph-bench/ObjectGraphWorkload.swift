import Foundation
import ObjectGraph

// ObjectGraph as a typical user writes it: entity classes declared once, a coordinator
// on the file, a private-queue context, `performAndWait` blocks, fetch requests and
// relationship traversal. The classes are named after the shared schema's tables, since
// an entity's table is its class name.

extension InvoiceStatus: AttributeValue {}
extension Currency: AttributeValue {}

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

@MainActor
final class ObjectGraphWorkload: Workload {
    private let coordinator: PersistentStoreCoordinator
    private var context: ManagedObjectContext

    init(path: String, create: Bool) throws {
        let model = try ManagedObjectModel(entities: [Client.self, Invoice.self])
        coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(.sqlite(at: URL(fileURLWithPath: path)))
        context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
    }

    func close() {}

    func discardCachedObjects() {
        context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
    }

    // MARK: Step 1

    func insert(_ dataset: Dataset) throws {
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

    // MARK: Reads

    private func add(_ invoice: Invoice, to digest: inout InvoiceDigest) throws {
        digest.addInvoice(
            pk: invoice.objectID.primaryKey ?? 0, identifier: invoice.identifier, amount: invoice.amount,
            currency: invoice.currency, status: invoice.status,
            issueDate: invoice.issueDate ?? .distantPast, dueDate: invoice.dueDate ?? .distantPast,
            notes: invoice.notes,
            client: try invoice.objectIDs(forRelationshipNamed: "client").first?.primaryKey ?? 0)
    }

    func fetchAllInvoices() throws -> InvoiceDigest {
        let context = self.context
        return try context.performAndWait {
            var digest = InvoiceDigest()
            for invoice in try context.fetch(FetchRequest<Invoice>()) { try add(invoice, to: &digest) }
            return digest
        }
    }

    func fetchInvoices(ids: [Int64]) throws -> InvoiceDigest {
        let context = self.context
        let coordinator = self.coordinator
        return try context.performAndWait {
            var digest = InvoiceDigest()
            for pk in ids {
                guard let id = coordinator.managedObjectID(for: Invoice.self, primaryKey: pk) else { continue }
                try add(try context.existingObject(with: id, as: Invoice.self), to: &digest)
            }
            return digest
        }
    }

    func setNotes(_ notes: String, onInvoices ids: [Int64]) throws {
        let context = self.context
        let coordinator = self.coordinator
        try context.performAndWait {
            for pk in ids {
                guard let id = coordinator.managedObjectID(for: Invoice.self, primaryKey: pk) else { continue }
                try context.existingObject(with: id, as: Invoice.self).notes = notes
            }
            try context.save()
        }
    }

    func fetchInvoicesOfClients(_ clientIDs: [Int64]) throws -> InvoiceDigest {
        let context = self.context
        let coordinator = self.coordinator
        return try context.performAndWait {
            var digest = InvoiceDigest()
            for pk in clientIDs {
                guard let id = coordinator.managedObjectID(for: Client.self, primaryKey: pk) else { continue }
                let client = try context.existingObject(with: id, as: Client.self)
                digest.addClient(pk: pk, name: client.name, email: client.email, city: client.city, country: client.country)
                for invoice in client.invoices { try add(invoice, to: &digest) }
            }
            return digest
        }
    }
}
