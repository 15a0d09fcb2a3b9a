import Foundation
import ObjectGraph
import ObjectGraphFixtureModel
import Testing

/// Real store files written by the old versions of the invoices fixture, the way an older
/// app left them: opened with that version's model, filled, and closed.
enum InvoiceFiles {
    struct Invoice: Sendable {
        var number: String
        var amount: Decimal
        var notes: String? = nil
    }

    /// A closed version 1 file with one client and `invoices`.
    static func version1(_ invoices: [Invoice], recordsHistory: Bool = false) async throws -> URL {
        let url = TestStack.fileURL()
        _ = try await write(invoices, to: url, recordsHistory: recordsHistory)
        return url
    }

    /// A version 1 file as a crashed app (or one still running) leaves it: its transactions
    /// still in the `-wal`, not checkpointed into the database. Copying the files while the
    /// version 1 coordinator is open freezes that state.
    static func version1WithTransactionsInItsWAL(_ invoices: [Invoice]) async throws -> URL {
        let original = TestStack.fileURL()
        defer { StoreFileState.cleanUp(original) }
        let coordinator = try await write(invoices, to: original, recordsHistory: false)
        let copy = TestStack.fileURL()
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: original.path + suffix, toPath: copy.path + suffix)
        }
        withExtendedLifetime(coordinator) {}
        return copy
    }

    private static func write(_ invoices: [Invoice], to url: URL, recordsHistory: Bool) async throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(model: InvoicesV1.model)
        try coordinator.addPersistentStore(.sqlite(at: url, recordsHistory: recordsHistory))
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "v1 app")
        try await context.perform {
            let client = InvoicesV1.Client(context: context)
            client.name = "Acme"
            client.email = "billing@acme.test"
            for invoice in invoices {
                let saved = InvoicesV1.Invoice(context: context)
                saved.number = invoice.number
                saved.amount = invoice.amount
                saved.notes = invoice.notes
                saved.purchaseOrder = "PO-\(invoice.number)"
                saved.client = client
            }
            try context.save()
        }
        return coordinator
    }

    /// Opens `url` with `model` and, when given, a migration plan.
    static func open(_ url: URL, with model: ManagedObjectModel, plan: MigrationPlan? = nil,
                     recordsHistory: Bool = false) throws -> PersistentStoreCoordinator {
        var description = PersistentStoreDescription.sqlite(at: url, recordsHistory: recordsHistory)
        description.migrationPlan = plan
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(description)
        return coordinator
    }

    /// The invoices of a version 3 store, by identifier: each line's (description, quantity,
    /// unit price) and the total.
    static func version3Invoices(at coordinator: PersistentStoreCoordinator) async throws
        -> [String: (lines: [LineItemValues], total: Decimal)] {
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        return try await context.perform {
            var result: [String: (lines: [LineItemValues], total: Decimal)] = [:]
            for invoice in try context.fetch(FetchRequest<InvoicesV3.Invoice>()) {
                let lines = invoice.lineItems.map { LineItemValues(description: $0.itemDescription, quantity: $0.quantity,
                                                                   unitPrice: $0.unitPrice) }
                result[invoice.identifier] = (lines, invoice.total)
            }
            return result
        }
    }

    struct LineItemValues: Sendable, Equatable {
        let description: String
        let quantity: Decimal
        let unitPrice: Decimal
    }
}
