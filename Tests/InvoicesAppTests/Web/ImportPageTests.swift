import Foundation
import Testing
@testable import InvoicesApp

/// The CSV upload page: the import runs beside the chain, its page shows progress, then the report.
@Suite struct ImportPageTests {
    private func multipart(csrf: String, filename: String, csv: String) -> (String, Data) {
        let boundary = "----test\(UUID().uuidString)"
        var body = "--\(boundary)\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n\(csrf)\r\n"
        body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(filename)\"\r\n"
        body += "Content-Type: text/csv\r\n\r\n\(csv)\r\n--\(boundary)--\r\n"
        return ("multipart/form-data; boundary=\(boundary)", Data(body.utf8))
    }

    @Test func anUploadedFileIsImportedAndInvalidRowsAreReportedWithTheirLines() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let page = try await visitor.get("/import")
            #expect(page.status == 200)
            #expect(page.text.contains("enctype=\"multipart/form-data\""))
            let csv = """
            client_name,client_email,identifier,amount,currency,status,issue_date,due_date
            Acme Corp,billing@acme.test,INV-UP-1,10.00,EUR,sent,2025-03-01,2025-03-31
            Nobody,,INV-UP-2,12,50,EUR,sent,2025-03-01,
            Zeta Oy,zeta@zeta.test,INV-UP-3,7,JPY,draft,2025-03-02,
            """
            let (type, body) = multipart(csrf: try #require(page.csrf), filename: "march.csv", csv: csv)
            let started = try await visitor.send("POST", "/import", headers: ["Content-Type": type], body: body)
            #expect(started.status == 303)
            let location = try #require(started.header("Location"))
            var report = try await visitor.get(location)
            for _ in 0..<100 where report.header("Refresh") != nil {
                try await Task.sleep(for: .milliseconds(100))
                report = try await visitor.get(location)
            }
            #expect(report.text.contains("Imported 2 of 3 invoices"))
            #expect(report.text.contains("Line 3"))
            #expect(try await visitor.get("/invoices?q=INV-UP").text.contains("INV-UP-3"))
            #expect(try await invoiceIdentifiersOnDisk(app.databaseURL).isSuperset(of: ["INV-UP-1", "INV-UP-3"]))
        }
    }

    @Test func anUploadWithoutItsCSRFTokenIs403() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            _ = try await visitor.get("/import")
            let (type, body) = multipart(csrf: "nope", filename: "x.csv", csv: "identifier\nX")
            let response = try await visitor.send("POST", "/import", headers: ["Content-Type": type], body: body)
            #expect(response.status == 403)
        }
    }
}
