import Foundation
import ObjectGraph
@testable import InvoicesApp

/// A file written by version 1 of the dashboard's model (``InvoicesModelV1``): one client,
/// four invoices with one amount each, a payment.
enum Version1File {
    /// (identifier, amount, currency, notes) of the version 1 file.
    static let invoices: [(String, String, String, String?)] = [
        ("INV-1", "1234.56", "EUR", "Consulting, March\nsecond line"),
        ("INV-2", "1200", "JPY", nil),
        ("INV-3", "12.345", "BHD", "  \n  Audit  "),
        ("INV-4", "0.10", "EUR", ""),
    ]

    /// Writes a version 1 file with a client, the invoices above and a payment of 100 on INV-1.
    static func write(to url: URL = TestFiles.database()) throws -> URL {
        let coordinator = PersistentStoreCoordinator(model: try InvoicesModelV1.make())
        try coordinator.addPersistentStore(.sqlite(at: url))
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        try context.performAndWait {
            let client = InvoicesModelV1.Client(context: context)
            client.name = "Acme"
            for (identifier, amount, currency, notes) in invoices {
                let invoice = InvoicesModelV1.Invoice(context: context)
                invoice.identifier = identifier
                invoice.amount = decimal(amount)
                invoice.currency = currency
                invoice.notes = notes
                invoice.status = .sent
                invoice.client = client
                if identifier == "INV-1" {
                    let payment = InvoicesModelV1.Payment(context: context)
                    payment.amount = 100
                    payment.invoice = invoice
                    invoice.paidAmount = 100
                }
            }
            try context.save()
        }
        return url
    }
}
