import Foundation
import Testing
@testable import InvoicesApp

/// The history pages, through the real server: an edit in a form, a payment, and an import by
/// another process each show up with who, through what, and each field from old to new.
@Suite struct HistoryPageTests {
    private func history(_ path: String, _ visitor: Visitor) async throws -> [RecordHistoryEntry] {
        let response = try await visitor.get(path + "/history.json")
        #expect(response.status == 200, "\(path): \(response.text)")
        return try jsonDecoder().decode([RecordHistoryEntry].self, from: response.body)
    }

    @Test(arguments: StackStore.all) func anEditShowsTheVisitorTheFormAndEachFieldFromOldToNew(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            let visitor = app.visitor()
            let pk = try await clientID("Beta Ltd", visitor: visitor)
            let (path, form) = try await visitor.openForm("/clients/\(pk)/edit")
            let saved = try await visitor.post(path, [("csrf", try #require(form.csrf)), ("name", "Beta Renamed"),
                                                      ("city", "Oslo"), ("action", "save")])
            #expect(saved.status == 303)

            let entries = try await history("/clients/\(pk)", visitor)
            let edit = try #require(entries.first)
            #expect(edit.kind == "changed")
            #expect(edit.who.hasPrefix("visitor "), "\(edit.who)")
            #expect(edit.via == "form: edit client \(pk)")
            #expect(edit.byAnotherProcess == false)
            #expect(edit.fields.map(\.label) == ["City", "Name"])
            #expect(edit.fields.first { $0.name == "name" }.map { [$0.old, $0.new] } == ["Beta Ltd", "Beta Renamed"])
            #expect(edit.fields.first { $0.name == "city" }.map { [$0.old, $0.new] } == [nil, "Oslo"])
            #expect(entries.map(\.kind) == ["changed", "created"])

            let page = try await visitor.get("/clients/\(pk)/history")
            #expect(page.text.contains("Beta Renamed"))
            #expect(page.text.contains(edit.who))
            #expect(try await visitor.get("/clients/\(pk)").text.contains("href=\"/clients/\(pk)/history\""))
            #expect(try await visitor.get("/clients/999999/history").status == 404)
            #expect(try await visitor.get("/clients/999999/history.json").status == 404)
        }
    }

    @Test(arguments: StackStore.all) func aPaymentShowsOnItsInvoicesHistoryAsPaidAndStatus(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            let visitor = app.visitor()
            let list = try jsonDecoder().decode(Page<InvoiceSummary>.self, from: try await visitor.get("/invoices.json?q=INV-1").body)
            let pk = try #require(list.items.first { $0.identifier == "INV-1" }?.id)
            let (path, form) = try await visitor.openForm("/payments/new?invoice=\(pk)")
            let saved = try await visitor.post(path, [("csrf", try #require(form.csrf)), ("amount", "100"),
                                                      ("date", "2025-06-20"), ("action", "save")])
            #expect(saved.status == 303)
            let latest = try #require(try await history("/invoices/\(pk)", visitor).first)
            #expect(latest.via == "form: new payment")
            #expect(latest.fields.first { $0.name == "status" }.map { [$0.old, $0.new] } == ["sent", "paid"])
            #expect(latest.fields.first { $0.name == "paidAmount" }?.new == "100")
        }
    }

    @Test func anImportByAnotherProcessShowsThatProcessAndItsFile() async throws {
        let invoices = try #require(ChildProcess.executable("invoices"), "build the invoices executable first")
        try await withDashboard { app in
            let folder = TestFiles.folder()
            let csv = folder.appendingPathComponent("june.csv")
            try Data("""
                client_name,client_email,identifier,amount,currency,status,issue_date,due_date
                Gamma AG,gamma@gamma.test,INV-HIST-1,12.50,EUR,sent,2025-06-01,2025-07-01

                """.utf8).write(to: csv)
            let run = try await ChildProcess.run(invoices, ["import", csv.path, "--db", app.databaseURL.path, "--quiet"])
            #expect(run.status == 0, "\(run.standardError)")
            let visitor = app.visitor()
            var found: InvoiceSummary?
            for _ in 0..<100 where found == nil {
                let list = try jsonDecoder().decode(Page<InvoiceSummary>.self,
                                                    from: try await visitor.get("/invoices.json?q=INV-HIST-1").body)
                found = list.items.first { $0.identifier == "INV-HIST-1" }
                if found == nil { try await Task.sleep(for: .milliseconds(50)) }   // the server merges within ~20 ms
            }
            let pk = try #require(found?.id)
            let created = try #require(try await history("/invoices/\(pk)", visitor).first)
            #expect(created.kind == "created")
            #expect(created.who.hasPrefix("invoices import (pid "), "\(created.who)")
            #expect(created.via == "import: june.csv")
            #expect(created.byAnotherProcess)
            #expect(created.fields.first { $0.name == "amount" }?.new == "12.5")
        }
    }
}
