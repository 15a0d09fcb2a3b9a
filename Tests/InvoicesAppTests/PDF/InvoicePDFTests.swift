import Foundation
import Testing
import TestSupport
@testable import InvoicesApp

/// The invoice PDF, read back by poppler's `pdftotext` and rendered by `pdftoppm`, as a
/// person's PDF viewer would.
@Suite struct InvoicePDFTests {
    private func document(client: String, lines: [InvoiceDocument.Line], payments: [InvoiceDocument.Payment] = [],
                          currency: String = "EUR") -> InvoiceDocument {
        InvoiceDocument(number: "INV-2026-00042", isDraft: false, issueDay: day("2026-11-02"), dueDay: day("2026-12-02"),
                        currency: currency,
                        client: ClientAddress(id: 7, name: client, email: "billing@example.test", number: "C-9",
                                              street: "Hauptstraße 5", zip: "10115", city: "Berlin", country: "Germany"),
                        lines: lines, payments: payments, notes: "Thank you.")
    }

    private func line(_ text: String, _ quantity: String, _ price: String, tax: String = "19") -> InvoiceDocument.Line {
        InvoiceDocument.Line(description: text, quantity: decimal(quantity), unitPrice: decimal(price), taxRate: decimal(tax),
                             currency: Currency(code: "EUR", name: "Euro", minorUnits: 2))
    }

    /// Runs a poppler tool as `tool options FILE trailing` on `pdf` and returns what it printed.
    private func poppler(_ tool: String, _ pdf: [UInt8], _ options: [String], then trailing: String) async throws -> (status: Int32, output: String, folder: URL) {
        let folder = TestFiles.folder()
        let file = folder.appendingPathComponent("invoice.pdf")
        try Data(pdf).write(to: file)
        guard let path = ["/usr/bin/\(tool)", "/usr/local/bin/\(tool)"].first(where: FileManager.default.isExecutableFile) else {
            Issue.record("\(tool) is missing: install poppler-utils (make test does)")
            return (-1, "", folder)
        }
        let result = try await ChildProcess.run(URL(fileURLWithPath: path), options + [file.path, trailing], in: folder)
        return (result.status, result.standardOutput + result.standardError, folder)
    }

    @Test func pdftotextFindsTheNumberTheClientEveryLineAndTheTotals() async throws {
        let lines = [line("Design workshop", "2", "450.00"), line("Hosting, November", "1", "19.99"),
                     line("Travel", "3", "0.10", tax: "7")]
        let pdf = try InvoicePDF(document(client: "Acme GmbH", lines: lines,
                                          payments: [.init(day: day("2026-11-20"), method: "Bank transfer", amount: 500, note: nil)])).render()
        #expect(pdf.starts(with: Array("%PDF-".utf8)))
        let text = try await poppler("pdftotext", pdf, ["-layout"], then: "-").output
        for expected in ["INV-2026-00042", "Acme GmbH", "Hauptstraße 5", "10115 Berlin", "Design workshop",
                         "Hosting, November", "Travel", "Net", "Total", "Balance due", "Bank transfer", "Thank you."] {
            #expect(text.contains(expected), "\(expected) missing from:\n\(text)")
        }
        // 900.00 + 19.99 + 0.30 net; tax 171.00 + 3.80 + 0.02; total 1,095.11; paid 500.
        for amount in ["920.29", "174.82", "1,095.11", "595.11"] {
            #expect(text.contains(amount), "\(amount) missing from:\n\(text)")
        }
    }

    @Test func japaneseAndGreekNamesPrint() async throws {
        let pdf = try InvoicePDF(document(client: "株式会社サンプル", lines: [line("Μελέτη σχεδίου", "1", "100")])).render()
        let text = try await poppler("pdftotext", pdf, [], then: "-").output
        #expect(text.contains("株式会社サンプル"), "\(text)")
        #expect(text.contains("Μελέτη σχεδίου"), "\(text)")
    }

    @Test func aLongInvoiceContinuesOnMorePagesAndEachPageRenders() async throws {
        let lines = (1...120).map { line("Line item number \($0) with a description long enough to matter", "1", "1.00") }
        let pdf = try InvoicePDF(document(client: "Many Lines Ltd", lines: lines)).render()
        let text = try await poppler("pdftotext", pdf, [], then: "-").output
        #expect(text.contains("Line item number 1 "))
        #expect(text.contains("Line item number 120 "))
        #expect(text.contains("142.80"), "120 × 1.00 + 19 % tax")
        let rendered = try await poppler("pdftoppm", pdf, ["-r", "30", "-png"], then: "page")
        #expect(rendered.status == 0, "\(rendered.output)")
        let pages = try FileManager.default.contentsOfDirectory(atPath: rendered.folder.path).filter { $0.hasSuffix(".png") }
        #expect(pages.count >= 3, "\(pages)")
    }

    @Test(arguments: StackStore.all) func theDashboardServesAnInvoiceAsAPDFAPersonCanRead(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            let visitor = app.visitor()
            let list = try jsonDecoder().decode(Page<InvoiceSummary>.self, from: try await visitor.get("/invoices.json?q=INV-3").body)
            let invoice = try #require(list.items.first { $0.identifier == "INV-3" })
            let page = try await visitor.get("/invoices/\(invoice.id)")
            #expect(page.text.contains("href=\"/invoices/\(invoice.id).pdf\""))
            let response = try await visitor.get("/invoices/\(invoice.id).pdf")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/pdf")
            #expect(response.header("Content-Disposition") == "inline; filename=\"invoice-INV-3.pdf\"")
            let text = try await poppler("pdftotext", Array(response.body), ["-layout"], then: "-").output
            for expected in ["Invoice INV-3", "Acme Corp", "Zürich", "20.00 USD", "Balance due"] {
                #expect(text.contains(expected), "\(expected) missing from:\n\(text)")
            }
            #expect(try await visitor.get("/invoices/999999.pdf").status == 404)
            #expect(try await visitor.get("/invoices/abc.pdf").status == 404)
        }
    }

    @Test(arguments: StackStore.all) func theDashboardsPDFPrintsTheInvoicesLinesInOrder(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            try await insert(into: app.stack) { context in
                let client = Client(context: context)
                client.name = "Lines GmbH"
                let invoice = Invoice(context: context)
                invoice.identifier = "INV-PDF-LINES"
                invoice.currency = "EUR"
                invoice.status = .sent
                invoice.issueDay = day("2025-06-01")
                invoice.dueDay = day("2025-07-01")
                invoice.client = client
                for (text, quantity, price, tax) in [("Design workshop", "2", "450", "19"), ("Travel costs", "1", "86.40", "0"),
                                                    ("Printed samples", "3", "0.333", "7")] {
                    let line = LineItem(context: context)
                    line.itemDescription = text
                    line.quantity = decimal(quantity)
                    line.unitPrice = decimal(price)
                    line.taxRate = decimal(tax)
                    invoice.appendLine(line)
                }
                invoice.settleLines()
            }
            let visitor = app.visitor()
            let list = try jsonDecoder().decode(Page<InvoiceSummary>.self,
                                                from: try await visitor.get("/invoices.json?q=INV-PDF-LINES").body)
            let invoice = try #require(list.items.first { $0.identifier == "INV-PDF-LINES" })
            // 900.00 + 171.00 tax, 86.40, 1.00 (0.999) + 0.07 tax: 987.40 net, 171.07 tax, 1,158.47.
            #expect(invoice.amount.amount == decimal("1158.47"))
            let text = try await poppler("pdftotext", Array(try await visitor.get("/invoices/\(invoice.id).pdf").body),
                                         ["-layout"], then: "-").output
            let positions = ["Design workshop", "Travel costs", "Printed samples"].map { text.range(of: $0)?.lowerBound }
            #expect(positions.allSatisfy { $0 != nil }, "lines missing from:\n\(text)")
            #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted(), "lines out of order:\n\(text)")
            for expected in ["987.40", "171.07", "1,158.47"] {
                #expect(text.contains(expected), "\(expected) missing from:\n\(text)")
            }
            #expect(!text.contains("Amount invoiced"))
        }
    }
}
