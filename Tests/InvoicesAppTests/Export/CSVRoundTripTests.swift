import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

/// `/invoices.csv` and `/clients.csv`, downloaded from a real server, imported by a real
/// `invoices import` into an empty file, give the same clients, invoices, lines and payments.
@Suite struct CSVRoundTripTests {
    /// Values chosen to break a careless export: formula starts, quotes, commas, line breaks,
    /// non-Latin text, three currencies' roundings, drafts without a number, an invoice
    /// without lines, payments, a client without invoices.
    private static func insertAwkwardData(into stack: InvoicesStack) async throws {
        try await insert(into: stack) { context in
            let ernst = context.makeClient("=Ernst & Söhne, \"Berlin\"", email: "ernst@example.de", number: "-42", city: "Berlin",
                                           country: "Germany")
            ernst.street = "'=Hauptstraße 1"
            ernst.zip = "+10115"
            let yamada = context.makeClient("山田商事", email: "info@yamada.example", city: "東京")
            context.makeClient("Idle GmbH", number: "@none")
            let first = context.makeInvoice("INV-2026-00001", client: ernst, status: .sent, issued: "2026-02-01", due: "2026-03-01",
                                            notes: "Line one\nline, two \"quoted\"\n=SUM(A1)")
            first.replaceLines(with: [LineFields(description: "Design, phase 1", quantity: 2, unitPrice: 100, taxRate: 19),
                                      LineFields(description: "-Travel", quantity: decimal("0.5"), unitPrice: decimal("33.333"), taxRate: 7),
                                      LineFields(description: "Goodwill", quantity: 1, unitPrice: 0, taxRate: 0)])
            first.addPayments([PaymentFields(date: day("2026-02-10"), amount: 50, method: "Card", note: "=cmd|' /C calc'!A0")])
            let second = context.makeInvoice("INV-2026-00002", client: yamada, currency: "JPY", status: .sent,
                                             issued: "2026-02-02", due: "2026-03-02")
            second.replaceLines(with: [LineFields(description: "コンサルティング", quantity: 3, unitPrice: 12_345, taxRate: 10)])
            second.addPayments([PaymentFields(date: day("2026-02-20"), amount: second.amount, method: "Bank transfer")])
            let draft = context.makeInvoice("", client: ernst, currency: "BHD", issued: "2026-02-03", due: "2026-03-03")
            draft.identifier = nil
            draft.replaceLines(with: [LineFields(description: "Audit", quantity: decimal("1.5"), unitPrice: decimal("12.3456"), taxRate: 5),
                                      LineFields(description: "Audit", quantity: 1, unitPrice: decimal("0.001"), taxRate: 0)])
            let twin = context.makeInvoice("", client: ernst, issued: "2026-02-03", due: "2026-03-03")
            twin.identifier = nil
            twin.replaceLines(with: [LineFields(description: "Audit", quantity: 1, unitPrice: 7)])
            let empty = context.makeInvoice("+1 special", client: yamada, currency: "USD", status: .cancelled,
                                            issued: "2025-12-31", due: "2026-01-30")
            empty.replaceLines(with: [])
        }
    }

    /// Serves `stack`, downloads both files, imports them into a new file with `invoices
    /// import` (clients first), and returns the new file.
    private static func roundTrip(_ stack: InvoicesStack) async throws -> (URL, invoicesCSV: String) {
        let server = try DashboardServer(stack: stack, host: "127.0.0.1", port: 0, resources: repositoryResources)
        let visitor = Visitor(port: server.port)
        let invoices = try await visitor.get("/invoices.csv"), clients = try await visitor.get("/clients.csv")
        await server.stop()
        #expect(invoices.status == 200 && clients.status == 200)
        #expect(invoices.header("Content-Disposition") == "attachment; filename=\"invoices.csv\"")
        let folder = TestFiles.folder()
        let invoicesFile = folder.appendingPathComponent("invoices.csv"), clientsFile = folder.appendingPathComponent("clients.csv")
        try invoices.body.write(to: invoicesFile)
        try clients.body.write(to: clientsFile)
        let target = folder.appendingPathComponent("copy.sqlite")
        let executable = try #require(ChildProcess.executable("invoices"), "build the invoices executable first")
        for file in [clientsFile, invoicesFile] {
            let result = try await ChildProcess.run(executable, ["import", file.path, "--db", target.path, "--quiet"])
            #expect(result.status == 0, "\(file.lastPathComponent): \(result.standardOutput) \(result.standardError)")
        }
        return (target, invoices.text)
    }

    @Test func awkwardValuesSurviveExportAndImport() async throws {
        let source = TestFiles.database()
        let stack = try InvoicesStack(storeURL: source)
        try await Self.insertAwkwardData(into: stack)
        let (copy, csv) = try await Self.roundTrip(stack)
        let before = try await DatabaseDump.read(source), after = try await DatabaseDump.read(copy)
        #expect(after == before, "before:\n\(before)\n\nafter:\n\(after)")
        #expect(before.invoices.count == 5 && before.clients.count == 3)
        // Formula starts are written as text, and what is not one is left alone.
        #expect(csv.contains("'=Ernst & Söhne"))
        #expect(csv.contains(",''=Hauptstraße 1,") && csv.contains(",+10115,") && csv.contains(",-42,"))
        #expect(csv.contains(",line,") && csv.contains(",payment,") && csv.contains(",invoice,"))
    }

    @Test func theDemoDataSurvivesExportAndImport() async throws {
        let source = TestFiles.database()
        let stack = try InvoicesStack(storeURL: source)
        try await stack.seedDemoDataIfEmpty(DemoData(seed: 7, clientCount: 40, invoiceCount: 400, today: day("2026-06-15")))
        let (copy, _) = try await Self.roundTrip(stack)
        let before = try await DatabaseDump.read(source), after = try await DatabaseDump.read(copy)
        #expect(before.invoices.count == 400)
        #expect(after.clients == before.clients)
        #expect(after.invoices == before.invoices)
    }

    @Test func aFilteredExportHoldsTheFilteredInvoicesOnly() async throws {
        let stack = try InvoicesStack(storeURL: TestFiles.database())
        try await Self.insertAwkwardData(into: stack)
        let server = try DashboardServer(stack: stack, host: "127.0.0.1", port: 0, resources: repositoryResources)
        let csv = try await Visitor(port: server.port).get("/invoices.csv?currency=JPY").text
        let clients = try await Visitor(port: server.port).get("/clients.csv?q=idle").text
        await server.stop()
        let rows = csv.split(separator: "\r\n").dropFirst()
        #expect(rows.count == 2 && rows.allSatisfy { $0.hasPrefix("INV-2026-00002,") })   // a line and a payment
        #expect(clients == "client_name,client_email,client_number,client_street,client_zip,client_city,client_country\r\nIdle GmbH,,'@none,,,,\r\n")
    }
}
