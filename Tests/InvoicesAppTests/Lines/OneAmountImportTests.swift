import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

/// Files in the one-amount format stay importable: each invoice gets one line.
@Suite struct OneAmountImportTests {
    private let header = "client_name,client_email,client_city,client_country,identifier,amount,currency,status,issue_date,due_date,notes"

    @Test func eachImportedAmountBecomesOneLineOfTheSameTotal() async throws {
        let stack = try makeStack()
        let rows = [
            "Acme GmbH,billing@acme.de,Berlin,Germany,INV-1,1250.05,EUR,sent,2025-03-01,2025-03-31,\"Phase 1\nsecond line\"",
            "Tanaka K.K.,,Tokyo,Japan,INV-2,150000,JPY,,2025-04-01,2025-05-01,",
            "Gulf Co,,Manama,Bahrain,INV-3,12.345,BHD,,2025-04-01,2025-05-01,",
            "Yen Co,,Osaka,Japan,INV-4,1200.5,JPY,,2025-04-01,2025-05-01,",
        ]
        let report = try await stack.importCSV(Data(([header] + rows).joined(separator: "\n").utf8 + [0x0A]))
        #expect(report.importedInvoices == 3)
        // A one-amount file's amount is not rounded into its line: one the currency cannot hold is refused.
        #expect(report.lines.contains("Line 6: Amount has more decimal places than JPY allows (0)."))
        let context = stack.newImportContext(name: "check")
        let found = try await context.perform { () throws -> [String: String] in
            var found: [String: String] = [:]
            for invoice in try context.fetch(FetchRequest<Invoice>()) {
                found[invoice.displayNumber] = invoice.currentLines.map {
                    "\($0.itemDescription)|\($0.quantity)|\($0.unitPrice)|\($0.taxRate)|\($0.total)"
                }.joined(separator: ";") + " = \(invoice.amount)"
            }
            return found
        }
        #expect(found == ["INV-1": "Phase 1|1|1250.05|0|1250.05 = 1250.05",
                          "INV-2": "Amount invoiced|1|150000|0|150000 = 150000",
                          "INV-3": "Amount invoiced|1|12.345|0|12.345 = 12.345"])
        let lines = try await context.perform { try context.count(for: FetchRequest<LineItem>()) }
        #expect(lines == 3)
    }
}
