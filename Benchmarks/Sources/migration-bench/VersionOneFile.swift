import Foundation
import ObjectGraph

/// The file every round migrates: version 1, 1,000 clients and `count` invoices with
/// amounts in cents, notes on every tenth, written once and copied for each measurement.
enum VersionOneFile {
    static func write(count: Int, to path: String) throws {
        let coordinator = PersistentStoreCoordinator(model: V1.model)
        try coordinator.addPersistentStore(.sqlite(at: URL(fileURLWithPath: path)))
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        let clients = try context.performAndWait {
            let clients = (0..<1_000).map { n in
                let client = V1.Client(context: context)
                client.name = "Client \(n)"
                return client
            }
            try context.save()
            return clients.map(\.objectID)
        }
        var n = 0
        let inserted = try coordinator.execute(BatchInsertRequest<V1.Invoice> {
            guard n < count else { return nil }
            n += 1
            var row = PropertyValues<V1.Invoice>()
            row.set(\.number, to: "INV-\(n)")
            row.set(\.amount, to: Decimal(n % 1_000_000) / 100)
            row.set(\.notes, to: n.isMultiple(of: 10) ? "Delivered in two parts; second part invoiced separately." : nil)
            row.set(\.issueDate, to: Date(timeIntervalSince1970: 1_700_000_000 + Double(n) * 60))
            row.set(\.purchaseOrder, to: "PO-\(n / 7)")
            row.set(\.client, to: clients[n % clients.count])
            return row
        })
        guard inserted.count == count else { throw BenchError("wrote \(inserted.count) invoices, expected \(count)") }
    }

    /// The amount invoice `n` was written with, as Decimal's canonical text.
    static func amountText(of n: Int) -> String { "\(Decimal(n % 1_000_000) / 100)" }
}
