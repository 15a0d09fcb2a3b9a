import Foundation
import ObjectGraph
import Synchronization
import Testing
@testable import InvoicesApp

@Suite struct CSVImportTests {
    private let header = "client_name,client_email,client_city,client_country,identifier,amount,currency,status,issue_date,due_date,notes"

    private func csv(_ rows: [String]) -> Data { Data(([header] + rows).joined(separator: "\n").utf8 + [0x0A]) }

    /// Every invoice in the store: identifier → (client name, amount, currency, status).
    private func invoices(_ stack: InvoicesStack) async throws -> [String: (String, String, String, InvoiceStatus)] {
        let context = stack.newImportContext()
        return try await context.perform { () throws -> [String: (String, String, String, InvoiceStatus)] in
            var result: [String: (String, String, String, InvoiceStatus)] = [:]
            for invoice in try context.fetch(FetchRequest<Invoice>()) {
                result[invoice.displayNumber] = (invoice.client?.name ?? "", invoice.money.plainAmount, invoice.currency, invoice.status)
            }
            return result
        }
    }

    private func clientNames(_ stack: InvoicesStack) async throws -> [String] {
        try await stack.clientPage(ClientQuery(pageSize: 500)).items.map(\.name)
    }

    @Test(arguments: StackStore.all) func validRowsAreImportedWithTheClientsTheyNeed(_ store: StackStore) async throws {
        let stack = try await makeStack(store)
        let report = try await stack.importCSV(csv([
            "Acme GmbH,billing@acme.de,Berlin,Germany,INV-1,1250.00,EUR,sent,2025-03-01,2025-03-31,\"Phase 1, design\"",
            "Acme GmbH,billing@acme.de,Berlin,Germany,INV-2,99.5,eur,paid,2025-03-05,,",
            "Tanaka K.K.,,Tokyo,Japan,INV-3,150000,JPY,,2025-04-01,2025-05-01,",
        ]))
        #expect(report.totalRows == 3 && report.importedInvoices == 3 && report.isComplete)
        #expect(report.createdClients == ["Acme GmbH", "Tanaka K.K."])
        #expect(report.matchedClients == 0)
        let stored = try await invoices(stack)
        #expect(stored["INV-1"]?.0 == "Acme GmbH" && stored["INV-1"]?.1 == "1250.00" && stored["INV-1"]?.3 == .sent)
        #expect(stored["INV-2"]?.2 == "EUR")
        #expect(stored["INV-3"]?.3 == .draft)
        let detail = try await stack.invoicePage(InvoiceQuery(search: "INV-2"), today: today).items.first
        #expect(detail?.dueDate == day("2025-04-04"))   // blank due date: issue date + 30 days
        #expect(try await clientNames(stack) == ["Acme GmbH", "Tanaka K.K."])
    }

    @Test(arguments: StackStore.all) func invalidRowsAreSkippedWithTheirLineAndReasonAndTheOthersImported(_ store: StackStore) async throws {
        let stack = try await makeStack(store)
        try await insert(into: stack) { c in c.makeInvoice("TAKEN", client: c.makeClient("Old")) }
        let report = try await stack.importCSV(csv([
            "Acme,,,,OK-1,10.00,EUR,sent,2025-03-01,2025-03-31,",                 // line 2
            "Acme,,,,BAD-AMOUNT,12;50,EUR,sent,2025-03-01,2025-03-31,",           // line 3
            "Acme,,,,BAD-YEN,1200.5,JPY,sent,2025-03-01,2025-03-31,",             // line 4
            "Acme,,,,BAD-CUR,10,EURO,sent,2025-03-01,2025-03-31,",                // line 5
            "Acme,,,,BAD-DUE,10,EUR,sent,2025-03-01,2025-02-01,",                 // line 6
            "Acme,,,,OK-1,10,EUR,sent,2025-03-01,2025-03-31,",                    // line 7
            "Acme,,,,TAKEN,10,EUR,sent,2025-03-01,2025-03-31,",                   // line 8
            "Acme,,,,BAD-FIELDS,10,EUR",                                          // line 9
            "Acme,,,,\"BAD\"QUOTE,10,EUR,sent,2025-03-01,2025-03-31,",            // line 10
            "Acme,,,,BAD-DATE,10,EUR,sent,01/03/2025,2025-03-31,",                // line 11
            "Acme,,,,BAD-STATUS,10,EUR,overdue,2025-03-01,2025-03-31,",           // line 12
            "Acme,not-an-email,,,BAD-EMAIL,10,EUR,sent,2025-03-01,2025-03-31,",   // line 13
            "Acme,,,,,-5,EUR,sent,2025-03-01,2025-03-31,",                        // line 14
            "Acme,,,,\"OK-2\",\"20\",EUR,draft,2025-03-02,2025-04-01,\"two\nlines\"",  // lines 15-16
            "Acme,,,,BAD-LATE,10,EUR,sent,2025-03-01,2025-02-01,",                // line 17
        ]))
        #expect(report.totalRows == 15)
        #expect(report.importedInvoices == 2)
        let reasons = Dictionary(uniqueKeysWithValues: report.skipped.map { ($0.line, $0.reasons.joined(separator: " ")) })
        #expect(report.skipped.map(\.line) == [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17])
        #expect(reasons[3] == "Amount \"12;50\" is not a number like 1234.50 (a dot for decimals, no thousands separators).")
        #expect(reasons[4] == "Amount has more decimal places than JPY allows (0).")
        #expect(reasons[5] == "Currency \"EURO\" is not an ISO 4217 code; use a code such as EUR, USD or JPY.")
        #expect(reasons[6] == "Due date must not be before the issue date.")
        #expect(reasons[7] == "Identifier OK-1 is already used on line 2.")
        #expect(reasons[8] == "An invoice with identifier TAKEN already exists.")
        #expect(reasons[9]?.hasPrefix("The row has 7 fields, the header 11") == true)
        #expect(reasons[10]?.hasPrefix("Text follows the closing quote") == true)
        #expect(reasons[11] == "Issue date \"01/03/2025\" is not a date like 2025-03-14 (year-month-day).")
        #expect(reasons[12]?.hasPrefix("Status \"overdue\" is not stored") == true)
        #expect(reasons[13] == "Client email \"not-an-email\" is not a valid address (expected name@example.com).")
        // (without its negative amount, the row would have been numbered: see NumberingTests)
        #expect(reasons[14] == "Amount must be at least 0. Line: Unit price must be at least 0.")
        #expect(reasons[17] == "Due date must not be before the issue date.")
        #expect(report.lines.contains("Line 4: Amount has more decimal places than JPY allows (0)."))
        let stored = try await invoices(stack)
        #expect(Set(stored.keys) == ["TAKEN", "OK-1", "OK-2"])
        #expect(report.createdClients == ["Acme"])
    }

    @Test(arguments: StackStore.all) func aRowOnlyTheSaveRefusesIsSkippedAndTheRestOfItsBatchImported(_ store: StackStore) async throws {
        let stack = try await makeStack(store)
        let longIdentifier = String(repeating: "X", count: 65)
        let report = try await stack.importCSV(csv([
            "Acme,,,,A-1,10,EUR,sent,2025-03-01,2025-03-31,",
            "Solo,,,,\(longIdentifier),10,EUR,sent,2025-03-01,2025-03-31,",
            "Acme,,,,A-2,10,EUR,sent,2025-03-01,2025-03-31,",
        ]))
        #expect(report.importedInvoices == 2)
        #expect(report.skipped == [.init(line: 3, reasons: ["Identifier must have at most 64 characters (has 65)."])])
        #expect(report.createdClients == ["Acme"])
        #expect(try await clientNames(stack) == ["Acme"])   // the failed row's new client is gone too
    }

    @Test(arguments: StackStore.all) func rowsMatchClientsByEmailFirstThenByName(_ store: StackStore) async throws {
        let stack = try await makeStack(store)
        try await insert(into: stack) { c in
            c.makeClient("Acme GmbH", email: "billing@acme.de")
            c.makeClient("Globex Ltd", email: "ap@globex.example")
        }
        let report = try await stack.importCSV(csv([
            "Another Name,BILLING@acme.de,,,E-1,10,EUR,sent,2025-03-01,,",     // email wins over name
            "  acme   gmbh ,,,,N-1,10,EUR,sent,2025-03-01,,",                  // name, case and spaces ignored
            "Globex Ltd,new@globex.example,,,N-2,10,EUR,sent,2025-03-01,,",    // unknown email, known name
            "Initech,info@initech.example,Austin,United States,C-1,10,USD,sent,2025-03-01,,",   // nobody: created
            "Initech,,,,C-2,10,USD,sent,2025-03-01,,",                          // the client created above
        ]))
        #expect(report.isComplete)
        #expect(report.createdClients == ["Initech"])
        #expect(report.matchedClients == 2)
        let stored = try await invoices(stack)
        #expect(stored["E-1"]?.0 == "Acme GmbH")
        #expect(stored["N-1"]?.0 == "Acme GmbH")
        #expect(stored["N-2"]?.0 == "Globex Ltd")
        #expect(stored["C-1"]?.0 == "Initech" && stored["C-2"]?.0 == "Initech")
        #expect(try await clientNames(stack) == ["Acme GmbH", "Globex Ltd", "Initech"])
        let initech = try #require(try await stack.clientPage(ClientQuery(search: "initech")).items.first)
        #expect(initech.email == "info@initech.example" && initech.city == "Austin")
    }

    @Test(arguments: StackStore.all) func aNameSharedByTwoClientsIsAmbiguousAndSkipped(_ store: StackStore) async throws {
        let stack = try await makeStack(store)
        try await insert(into: stack) { c in
            c.makeClient("Acme", email: "a@acme.example")
            c.makeClient("Acme", email: "b@acme.example")
        }
        let report = try await stack.importCSV(csv(["Acme,,,,A-1,10,EUR,sent,2025-03-01,,"]))
        #expect(report.skipped == [.init(line: 2, reasons: ["Client name \"Acme\" matches 2 clients; add client_email to choose one."])])
    }

    @Test(arguments: StackStore.all) func anUnknownEmailWithoutANameCannotCreateAClient(_ store: StackStore) async throws {
        let stack = try await makeStack(store)
        let data = Data("client_email,identifier,amount,currency,issue_date\nnobody@example.com,A-1,10,EUR,2025-03-01\n".utf8)
        let report = try await stack.importCSV(data)
        #expect(report.skipped.first?.reasons == ["No client has the email nobody@example.com; add client_name to create one."])
    }

    @Test(arguments: StackStore.all) func aHeaderWithoutRequiredColumnsFailsTheWholeFile(_ store: StackStore) async throws {
        let stack = try await makeStack(store)
        await #expect(throws: ImportError.missingColumns(["amount (or record)", "issue_date"], found: ["client_name", "identifier", "currency"])) {
            try await stack.importCSV(Data("client_name,identifier,currency\nAcme,A-1,EUR\n".utf8))
        }
        await #expect(throws: ImportError.empty) { try await stack.importCSV(Data()) }
        await #expect(throws: ImportError.duplicateColumn("amount")) {
            try await stack.importCSV(Data("client_name,identifier,amount,Amount,currency,issue_date\n".utf8))
        }
    }

    @Test(arguments: StackStore.all) func headersAreMatchedLooselyAndUnknownColumnsReported(_ store: StackStore) async throws {
        let stack = try await makeStack(store)
        var data = Data([0xEF, 0xBB, 0xBF])
        data.append(Data("Client Name,Identifier,AMOUNT,currency,issue-date,colour\r\nAcme,A-1,10,EUR,2025-03-01,blue\r\n".utf8))
        let report = try await stack.importCSV(data)
        #expect(report.importedInvoices == 1)
        #expect(report.ignoredColumns == ["colour"])
    }

    @Test(arguments: StackStore.all) func aFileInALegacyEncodingIsRefusedWithTheLine(_ store: StackStore) async throws {
        let stack = try await makeStack(store)
        var data = Data((header + "\n").utf8)
        data.append(contentsOf: [0x4D, 0xFC, 0x6C, 0x6C, 0x65, 0x72])
        await #expect(throws: ImportError.notUTF8(line: 2)) { try await stack.importCSV(data) }
    }

    @Test(arguments: StackStore.all) func largeFilesAreSavedInBatchesWithProgress(_ store: StackStore) async throws {
        let stack = try await makeStack(store)
        let rows = (1...25).map { "Client \($0 % 4),,,,B-\($0),\($0).00,EUR,sent,2025-03-01,," }
        let fractions = Mutex<[Double]>([])
        let report = try await stack.importCSV(csv(rows), batchSize: 10) { progress in
            fractions.withLock { $0.append(progress.fraction) }
        }
        #expect(report.importedInvoices == 25)
        #expect(report.createdClients.count == 4)
        let seen = fractions.withLock { $0 }
        #expect(seen == [0, 0.4, 0.8, 1])
        let page = try await stack.invoicePage(InvoiceQuery(), today: today)
        #expect(page.totalCount == 25)
    }

    @Test(arguments: StackStore.all) func anIdentifierRepeatedInALaterBatchIsFoundInTheStoreNotImportedTwice(_ store: StackStore) async throws {
        let stack = try await makeStack(store)
        let rows = (1...6).map { "Client,,,,B-\($0),\($0).00,EUR,sent,2025-03-01,," } + ["Client,,,,B-2,9.00,EUR,sent,2025-03-01,,"]
        let report = try await stack.importCSV(csv(rows), batchSize: 2)
        #expect(report.importedInvoices == 6)
        #expect(report.skipped == [.init(line: 8, reasons: ["An invoice with identifier B-2 already exists."])])
        #expect(try await stack.invoicePage(InvoiceQuery(), today: today).totalCount == 6)
    }

    @Test(arguments: StackStore.all) func importedRowsAppearInTheMainContextsPages(_ store: StackStore) async throws {
        let stack = try await makeFixtureStack(store)
        let before = try await stack.clientDetail(id: try await clientID("Zed Design", in: stack), today: today)
        #expect(before?.invoices.isEmpty == true)
        try await stack.importCSV(csv(["Zed Design,,,,Z-1,42.00,EUR,sent,2025-06-01,2025-06-10,"]))
        let after = try #require(try await stack.clientDetail(id: try await clientID("Zed Design", in: stack), today: today))
        #expect(after.invoices.map(\.identifier) == ["Z-1"])
        #expect(after.balance.formatted == ["42.00 EUR"])
        #expect(try await stack.invoicePage(InvoiceQuery(status: .overdue), today: today).totalCount == 4)
    }
}
