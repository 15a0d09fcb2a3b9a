import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

/// A file of version 2 (numbers typed by hand, required) opens as version 3: its numbers are
/// kept, and the year's sequence continues after the highest of them.
@Suite struct Version2MigrationTests {
    private static func writeVersion2File() throws -> URL {
        let url = TestFiles.database()
        let coordinator = PersistentStoreCoordinator(model: try InvoicesModelV2.make())
        try coordinator.addPersistentStore(.sqlite(at: url))
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try context.performAndWait {
            let client = InvoicesModelV2.Client(context: context)
            client.name = "Acme"
            for (identifier, status) in [("INV-2026-00005", InvoiceStatus.sent), ("DRAFT-1", .draft)] {
                let invoice = InvoicesModelV2.Invoice(context: context)
                invoice.identifier = identifier
                invoice.status = status
                invoice.issueDate = day("2026-02-01").date
                invoice.dueDate = day("2026-03-01").date
                invoice.client = client
                let line = InvoicesModelV2.LineItem(context: context)
                line.itemDescription = "Work"
                line.unitPrice = 10
                line.invoice = invoice
                invoice.amount = 10
            }
            try context.save()
        }
        return url
    }

    @Test func aVersion2FileKeepsItsNumbersAndTheSequenceContinuesAfterThem() async throws {
        let url = try Self.writeVersion2File()
        #expect(try PersistentStoreCoordinator.modelVersion(ofStoreAt: url) == 2)
        let stack = try InvoicesStack(storeURL: url)
        #expect(try PersistentStoreCoordinator.modelVersion(ofStoreAt: url) == InvoicesModel.version)
        let scratchpad = stack.newScratchpad(name: "send")
        try await scratchpad.perform {
            let acme = try #require(try scratchpad.fetch(FetchRequest<Client>()).first)
            let invoice = scratchpad.makeInvoice("", client: acme, status: .sent, issued: "2026-04-01", due: "2026-05-01")
            invoice.identifier = nil
        }
        guard case .saved = await stack.save(scratchpad) else { Issue.record("the new invoice was not saved"); return }
        let numbers = try await stack.main.perform {
            Set(try stack.main.fetch(FetchRequest<Invoice>()).compactMap(\.identifier))
        }
        #expect(numbers == ["INV-2026-00005", "DRAFT-1", "INV-2026-00006"])
    }
}
