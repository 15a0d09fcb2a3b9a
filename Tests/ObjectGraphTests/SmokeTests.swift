import Foundation
import Testing
@testable import ObjectGraph

@Test func insertSaveAndFetchRoundTrip() async throws {
    let coordinator = try TestStack.coordinator()
    let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
    let ids = try await context.perform {
        let client = Client(context: context)
        client.name = "Acme"
        let invoice = Invoice(context: context)
        invoice.identifier = "INV-1"
        invoice.amount = Decimal(string: "12.50")!
        invoice.client = client
        #expect(client.invoices.count == 1)
        #expect(client.objectID.isTemporaryID)
        try context.save()
        #expect(!client.objectID.isTemporaryID)
        return (client.objectID, invoice.objectID)
    }
    let other = ManagedObjectContext(.privateQueue, coordinator: coordinator)
    try await other.perform {
        let clients = try other.fetch(FetchRequest<Client>())
        #expect(clients.count == 1)
        #expect(clients.first?.name == "Acme")
        #expect(clients.first?.objectID == ids.0)
        let invoice = try other.existingObject(with: ids.1, as: Invoice.self)
        #expect(invoice.amount == Decimal(string: "12.5"))
        #expect(invoice.client?.name == "Acme")
        #expect(invoice.client?.invoices.count == 1)
    }
}
