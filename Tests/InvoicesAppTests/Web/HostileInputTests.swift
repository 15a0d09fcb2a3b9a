import CSQLite
import Foundation
import Testing
@testable import InvoicesApp

/// Input no browser would type, sent on purpose: refused beside its field, nothing stored.
@Suite struct HostileInputTests {
    /// A `multipart/form-data` body of text fields.
    private func multipart(_ fields: [(String, String)], boundary: String = "hostile-boundary") -> Data {
        var body = ""
        for (name, value) in fields {
            body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
        }
        return Data((body + "--\(boundary)--\r\n").utf8)
    }

    /// Opens a new invoice form for Beta Ltd; returns its path and the fields of a valid invoice.
    private func newInvoiceForm(_ visitor: Visitor) async throws -> (path: String, fields: [(String, String)]) {
        let clientID = try await clientID("Beta Ltd", visitor: visitor)
        let (path, form) = try await visitor.openForm("/invoices/new?client=\(clientID)")
        return (path, [("csrf", try #require(form.csrf)), ("client", String(clientID)), ("line-0-description", "Work"), ("line-0-quantity", "1"), ("line-0-unitPrice", "12.50"), ("line-0-taxRate", "0"),
                       ("currency", "EUR"), ("status", "draft"), ("issueDate", "2025-06-01"), ("dueDate", "2025-07-01")])
    }

    @Test func aNULInAMultipartFieldIsA422BesideItAndNothingIsStored() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let (path, fields) = try await newInvoiceForm(visitor)
            let response = try await visitor.send("POST", path,
                                                  headers: ["Content-Type": "multipart/form-data; boundary=hostile-boundary"],
                                                  body: multipart(fields + [("identifier", "IMP-NUL\u{0}TAIL"), ("action", "save")]))
            #expect(response.status == 422)
            #expect(response.text.contains("id=\"error-identifier\""))
            #expect(response.text.contains("Identifier must be one line, without control characters (found U+0000)."))
            #expect(try await invoiceIdentifiersOnDisk(app.databaseURL) == ["INV-1", "INV-2", "INV-3"])
        }
    }

    @Test func aNULInAnURLEncodedFieldIsA422BesideItAndNothingIsStored() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let (path, fields) = try await newInvoiceForm(visitor)
            let response = try await visitor.post(path, fields + [("identifier", "IMP-NUL\u{0}TAIL"), ("action", "save")])
            #expect(response.status == 422)
            #expect(response.text.contains("Identifier must be one line, without control characters (found U+0000)."))
            #expect(try await invoiceIdentifiersOnDisk(app.databaseURL) == ["INV-1", "INV-2", "INV-3"])
        }
    }

    @Test func aLineBreakInAClientNameIsA422ButNotesMaySpanLines() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let (path, form) = try await visitor.openForm("/clients/new")
            let csrf = try #require(form.csrf)
            let response = try await visitor.post(path, [("csrf", csrf), ("name", "Forged\r\nLtd"), ("city", "Bern\u{1B}[2J"),
                                                         ("action", "save")])
            #expect(response.status == 422)
            #expect(response.text.contains("Name must be one line, without control characters (found U+000D)."))
            #expect(response.text.contains("City must be one line, without control characters (found U+001B)."))
            #expect(try await clientsOnDisk(app.databaseURL).keys.sorted() == ["Acme Corp", "Beta Ltd"])

            let (invoicePath, fields) = try await newInvoiceForm(visitor)
            let saved = try await visitor.post(invoicePath, fields + [("identifier", "INV-LINES"),
                                                                      ("notes", "first line\r\n\tsecond line"), ("action", "save")])
            #expect(saved.status == 303)
            #expect(try await invoiceIdentifiersOnDisk(app.databaseURL).contains("INV-LINES"))
        }
    }

    @Test func anAmountPastFifteenIntegerDigitsIsA422() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let (path, fields) = try await newInvoiceForm(visitor)
            let response = try await visitor.post(path, fields.filter { $0.0 != "line-0-unitPrice" }
                                                  + [("identifier", "INV-BIG"), ("line-0-unitPrice", "1234567890123456.00"), ("action", "save")])
            #expect(response.status == 422)
            #expect(response.text.contains("is too large: at most 15 digits before the decimal point"))
            #expect(try await invoiceIdentifiersOnDisk(app.databaseURL) == ["INV-1", "INV-2", "INV-3"])
        }
    }

    @Test func aDatabaseErrorIsShownInWordsWithoutItsSQL() async throws {
        try await withDashboard { app in
            // Another program's trigger refuses every new client, with SQL in SQLite's error.
            var database: OpaquePointer?
            defer { sqlite3_close_v2(database) }
            #expect(sqlite3_open_v2(app.databaseURL.path, &database, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK)
            #expect(sqlite3_exec(database, "CREATE TRIGGER refuse BEFORE INSERT ON \"Client\" BEGIN SELECT RAISE(ABORT, 'no'); END;",
                                 nil, nil, nil) == SQLITE_OK)
            let visitor = app.visitor()
            let (path, form) = try await visitor.openForm("/clients/new")
            let response = try await visitor.post(path, [("csrf", try #require(form.csrf)), ("name", "Gamma"), ("action", "save")])
            #expect(response.status == 500)
            #expect(response.text.contains("the database refused it (the database does not accept one of the values)"))
            #expect(!response.text.contains("INSERT") && !response.text.contains("SQLite"))
            #expect(!response.text.contains(app.databaseURL.path))
        }
    }
}
