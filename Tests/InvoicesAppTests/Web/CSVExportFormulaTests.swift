import Foundation
import Testing
@testable import InvoicesApp

/// What the CSV export writes for values chosen to run in a spreadsheet.
@Suite struct CSVExportFormulaTests {
    @Test(arguments: StackStore.all) func formulaPayloadsAreExportedAsText(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            try await insert(into: app.stack) { context in
                let client = Client(context: context)
                client.name = "-9+cmd|' /C calc'!A0"
                let invoice = Invoice(context: context)
                invoice.identifier = "+1+cmd|' /C calc'!A0"
                invoice.currency = "EUR"
                invoice.setSingleLine(amount: decimal("12.50"))
                invoice.issueDay = day("2025-06-01")
                invoice.dueDay = day("2025-07-01")
                invoice.client = client
            }
            let csv = try await app.visitor().get("/invoices.csv")
            let line = try #require(csv.text.split(separator: "\r\n").first { $0.contains("cmd|") })
            // invoice, record, identifier, status, currency, dates, amount, notes, client_name…
            #expect(line.hasPrefix("'+1+cmd|' /C calc'!A0,line,'+1+cmd|' /C calc'!A0,draft,EUR,2025-06-01,2025-07-01,12.50,,'-9+cmd|' /C calc'!A0,"))
        }
    }
}
