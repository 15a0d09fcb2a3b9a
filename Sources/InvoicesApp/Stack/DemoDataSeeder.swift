import Foundation
import ObjectGraph

extension DemoData {
    /// Inserts the demo data into `context` and saves, unless the store already has a
    /// client. Use a root context (an import context), so the data reaches the file.
    ///
    /// - Returns: the IDs of what was inserted (for ``InvoicesStack/mergeImportSave(_:)``),
    ///   or nil when the store was not empty and nothing was done.
    /// - Throws: `FetchError` or `SaveError` from the store.
    public func seedIfEmpty(_ context: ManagedObjectContext) async throws -> SavedChanges? {
        let data = self
        return try await context.perform { () throws -> SavedChanges? in
            guard try context.count(for: FetchRequest<Client>()) == 0 else { return nil }
            var clients: [Client] = []
            clients.reserveCapacity(data.clients.count)
            for record in data.clients {
                let client = Client(context: context)
                client.assign(name: record.name, details: record.details)
                client.createdAt = record.createdAt
                clients.append(client)
            }
            var invoices: [Invoice] = []
            invoices.reserveCapacity(data.invoices.count)
            for record in data.invoices {
                let invoice = Invoice(context: context)
                invoice.assign(record.fields)
                invoice.client = clients[record.clientIndex]
                invoice.replaceLines(with: record.lines)
                invoice.addPayments(record.payments)
                invoices.append(invoice)
            }
            // The years' sequences start after the demo's numbers.
            _ = try InvoiceNumbering().assignNumbers(in: context)
            try context.save()
            let lines = invoices.flatMap { $0.lines.map(\.objectID) }
            let payments = invoices.flatMap { $0.payments.map(\.objectID) }
            return SavedChanges(inserted: Set(clients.map(\.objectID) + invoices.map(\.objectID) + lines + payments))
        }
    }
}

extension InvoicesStack {
    /// Fills an empty database with ``DemoData/standard(today:)`` through an import context,
    /// then merges it into writer and main. What `invoices serve` does unless `--no-demo-data`.
    /// Servers sharing a PostgreSQL database that start together take turns: the first fills
    /// it, the others find it filled.
    /// - Returns: whether data was inserted (false when the database already had clients).
    @discardableResult
    public func seedDemoDataIfEmpty(_ data: DemoData = .standard()) async throws -> Bool {
        let context = newImportContext(name: "demo data")
        let seeded = try await exclusively("invoices.demo-data") { try await data.seedIfEmpty(context) }
        guard let changes = seeded else { return false }
        await mergeImportSave(changes)
        return true
    }
}
