import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

/// Files of line and payment rows (what `/invoices.csv` writes), read by the importer: rows
/// gathered into invoices, and an invoice whose rows are not all good left out whole.
@Suite struct LineRowsImportTests {
    private static let header = "invoice,record,identifier,status,currency,issue_date,amount,client_name,"
        + "line_description,line_quantity,line_unit_price,line_tax_rate,payment_date,payment_amount"

    private static func importing(_ rows: [String]) async throws -> (InvoicesStack, ImportReport) {
        let stack = try makeStack()
        let report = try await stack.importCSV(Data(([header] + rows).joined(separator: "\n").utf8))
        return (stack, report)
    }

    private static func lines(in stack: InvoicesStack) async throws -> [String: [String]] {
        try await stack.main.perform {
            var result: [String: [String]] = [:]
            for invoice in try stack.main.fetch(FetchRequest<Invoice>()) {
                result[invoice.displayNumber] = invoice.currentLines.map { "\($0.itemDescription) \($0.quantity)×\($0.unitPrice)" }
                    + ["total \(invoice.amount)", "paid \(invoice.paidAmount)", invoice.status.rawValue]
            }
            return result
        }
    }

    @Test func rowsOfOneInvoiceAreGatheredInOrderWithItsPayments() async throws {
        let (stack, report) = try await Self.importing([
            "A,line,INV-A,sent,EUR,2026-01-05,,Acme,Design,2,100,19,,",
            "A,payment,INV-A,sent,EUR,2026-01-05,,Acme,,,,,2026-01-20,238",
            "A,line,INV-A,sent,EUR,2026-01-05,,Acme,Hosting,1,0.5,0,,",
            "B,line,INV-B,sent,EUR,2026-01-06,,Acme,Only line,1,10,0,,",
        ])
        #expect(report.importedInvoices == 2 && report.skipped.isEmpty, "\(report.lines)")
        #expect(report.summary.hasPrefix("Imported 2 of 2 invoices (4 rows)."))
        let found = try await Self.lines(in: stack)
        // 238 of 238.50 paid: still sent, partially paid
        #expect(found["INV-A"] == ["Design 2×100", "Hosting 1×0.5", "total 238.5", "paid 238", "sent"])
        #expect(found["INV-B"] == ["Only line 1×10", "total 10", "paid 0", "sent"])
    }

    @Test func rowsOfOneInvoiceFollowEachOther() async throws {
        let (stack, report) = try await Self.importing([
            "A,line,INV-A,sent,EUR,2026-01-05,,Acme,Design,1,100,0,,",
            "B,line,INV-B,sent,EUR,2026-01-06,,Acme,Only line,1,10,0,,",
            "A,line,INV-A,sent,EUR,2026-01-05,,Acme,Hosting,1,5,0,,",
        ])
        #expect(report.skipped == [.init(line: 4, reasons: ["Identifier INV-A is already used on line 2."])])
        #expect(try await Self.lines(in: stack)["INV-A"]?.first == "Design 1×100")
    }

    @Test func anInvoiceWithAnUnreadableRowIsLeftOutWholeAndTheOthersImported() async throws {
        let (stack, report) = try await Self.importing([
            "A,line,INV-A,sent,EUR,2026-01-05,,Acme,Design,2,100,19,,",
            "A,line,INV-A,sent,EUR,2026-01-05,,Acme,Hosting,two,5,0,,",
            "B,line,INV-B,sent,EUR,2026-01-06,,Acme,Only line,1,10,0,,",
            "C,refund,INV-C,sent,EUR,2026-01-06,,Acme,,,,,,",
        ])
        #expect(report.importedInvoices == 1)
        let reasons = Dictionary(uniqueKeysWithValues: report.skipped.map { ($0.line, $0.reasons.joined(separator: " ")) })
        #expect(reasons[3] == "Quantity \"two\" is not a number like 1234.50 (a dot for decimals, no thousands separators).")
        #expect(reasons[2] == "Invoice INV-A was not imported: its row on line 3 could not be read.")
        #expect(reasons[5] == "Record \"refund\" is not one of line, payment or invoice.")
        #expect(try await Self.lines(in: stack).keys.sorted() == ["INV-B"])
    }

    @Test func aTotalThatIsNotTheLinesTotalIsRefusedAndABlankOneIsNot() async throws {
        let (stack, report) = try await Self.importing([
            "A,line,INV-A,sent,EUR,2026-01-05,99.00,Acme,Design,1,100,0,,",
            "B,line,INV-B,sent,EUR,2026-01-05,100.00,Acme,Design,1,100,0,,",
        ])
        #expect(report.skipped == [.init(line: 2, reasons: [
            "Amount 99 is not the total of the invoice's lines (100.00): correct it, or leave it blank.",
        ])])
        #expect(try await Self.lines(in: stack)["INV-B"]?.contains("total 100") == true)
    }

    @Test func anOverpaymentIsRefusedWithItsReason() async throws {
        let (_, report) = try await Self.importing([
            "A,line,INV-A,sent,EUR,2026-01-05,,Acme,Design,1,100,0,,",
            "A,payment,INV-A,sent,EUR,2026-01-05,,Acme,,,,,2026-01-07,150",
        ])
        #expect(report.importedInvoices == 0, "\(report.lines)")
        let reasons = report.skipped.first?.reasons ?? []
        #expect(reasons.contains { $0.hasPrefix("Payment: This would pay more than the invoice's total of 100.00") }, "\(reasons)")
    }

    @Test(arguments: StackStore.all) func aFileOfClientsAloneCreatesTheMissingClients(_ store: StackStore) async throws {
        let stack = try await makeStack(store)
        try await insert(into: stack) { context in context.makeClient("Acme", email: "a@acme.test") }
        let report = try await stack.importCSV(Data("""
            client_name,client_email,client_city
            Acme again,a@acme.test,Basel
            Beta,,Bern
            ,c@nobody.test,
            """.utf8))
        #expect(report.isClientFile)
        #expect(report.createdClients == ["Beta"] && report.matchedClients == 1)
        #expect(report.skipped.map(\.line) == [4])
        #expect(report.summary == "Read 3 client rows: created 1, 1 already there; skipped 1.")
    }
}
