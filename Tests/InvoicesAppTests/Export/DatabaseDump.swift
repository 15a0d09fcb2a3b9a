import Foundation
import ObjectGraph
@testable import InvoicesApp

/// Everything a user would call "the same data" in a database file, as sorted text: its
/// clients, and its invoices with their lines (in order) and payments. Two files whose dumps
/// are equal hold the same invoices, clients, lines and payments, whatever their keys.
struct DatabaseDump: Equatable, CustomStringConvertible {
    let clients: [String]
    let invoices: [String]

    /// Reads the file through a coordinator of its own.
    static func read(_ url: URL) async throws -> DatabaseDump {
        let context = try InvoicesStack(storeURL: url).newImportContext(name: "dump")
        return try await context.perform { () throws -> DatabaseDump in
            let clients = try context.fetch(FetchRequest<Client>()).map { client in
                [client.name, client.email, client.number, client.street, client.zip, client.city, client.country]
                    .map { $0 ?? "∅" }.joined(separator: " | ")
            }
            let invoices = try context.fetch(FetchRequest<Invoice>()).map(Self.describe)
            return DatabaseDump(clients: clients.sorted(), invoices: invoices.sorted())
        }
    }

    private static func describe(_ invoice: Invoice) -> String {
        let head = [invoice.identifier ?? "∅", invoice.status.rawValue, invoice.currency, invoice.issueDay.description,
                    invoice.dueDay.description, invoice.notes ?? "∅", "\(invoice.amount)", "paid \(invoice.paidAmount)",
                    invoice.client?.name ?? "∅"].joined(separator: " | ")
        let lines = invoice.currentLines.map { "  line \($0.itemDescription) × \($0.quantity) @ \($0.unitPrice) + \($0.taxRate)%" }
        let payments = invoice.payments.map { "  payment \($0.day) \($0.amount) \($0.method) \($0.note ?? "∅")" }.sorted()
        return ([head] + lines + payments).joined(separator: "\n")
    }

    var description: String { (clients + invoices).joined(separator: "\n") }
}
