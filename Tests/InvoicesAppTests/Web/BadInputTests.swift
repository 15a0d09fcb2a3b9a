import Foundation
import Testing
@testable import InvoicesApp

/// What a visitor who types (or sends) something wrong gets: 4xx pages with the reason.
@Suite struct BadInputTests {
    @Test func aScriptTagInEveryTextFieldComesBackEscaped() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let (path, form) = try await visitor.openForm("/clients/new")
            let script = "<script>alert(1)</script>"
            let table = FormTable(Client.self, model: app.stack.coordinator.model)
            let fields = table.fields.map(\.name).filter { $0 != "email" }.map { ($0, script) }
            let response = try await visitor.post(path, [("csrf", try #require(form.csrf)), ("email", script)] + fields
                                                    + [("action", "save")])
            #expect(response.status == 422)   // the email is not an address
            #expect(!response.text.contains(script))
            #expect(response.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(response.text.contains("Zip must be at most") || response.text.contains("at most 20"))
            // A valid email and a postcode short enough; the other fields keep the script tag.
            let fixed = try await visitor.post(path, [("csrf", try #require(form.csrf)), ("email", ""), ("zip", "<b>"),
                                                      ("action", "save")])
            #expect(fixed.status == 303)
            let page = try await visitor.get(try #require(fixed.header("Location")))
            #expect(!page.text.contains(script))
            #expect(page.text.contains("&lt;script&gt;"))
            #expect(!(try await visitor.get("/clients")).text.contains(script))
        }
    }

    @Test func aTwoMegabyteFieldIsRefused() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let (path, form) = try await visitor.openForm("/clients/new")
            let huge = String(repeating: "x", count: 2 << 20)
            let response = try await visitor.post(path, [("csrf", try #require(form.csrf)), ("name", huge), ("action", "save")])
            #expect(response.status == 413)
            #expect(response.text.contains("too large"))
            #expect(try await visitor.get(path).status == 200)
        }
    }

    @Test func aMalformedAmountOrCurrencyIsA422WithTheReason() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let clientID = try await clientID("Beta Ltd", visitor: visitor)
            let (path, form) = try await visitor.openForm("/invoices/new?client=\(clientID)")
            #expect(form.text.contains("<option value=\"\(clientID)\" selected>"))
            let csrf = try #require(form.csrf)
            let fields = [("csrf", csrf), ("identifier", "INV-NEW"), ("client", String(clientID)), ("status", "draft"),
                          ("issueDate", "2025-06-01"), ("dueDate", "2025-07-01")]
            let badAmount = try await visitor.post(path, fields + [("line-0-description", "Work"), ("line-0-quantity", "1"), ("line-0-unitPrice", "12,50"), ("line-0-taxRate", "0"), ("currency", "EUR"), ("action", "save")])
            #expect(badAmount.status == 422)
            #expect(badAmount.text.contains("is not a number like 1234.50"))
            #expect(badAmount.text.contains("value=\"12,50\""))
            let badCurrency = try await visitor.post(path, fields + [("line-0-description", "Work"), ("line-0-quantity", "1"), ("line-0-unitPrice", "12.50"), ("line-0-taxRate", "0"), ("currency", "EURO"), ("action", "save")])
            #expect(badCurrency.status == 422)
            #expect(badCurrency.text.contains("not a three-letter ISO 4217 code"))
            let unknownCurrency = try await visitor.post(path, fields + [("line-0-description", "Work"), ("line-0-quantity", "1"), ("line-0-unitPrice", "12.50"), ("line-0-taxRate", "0"), ("currency", "XYZ"), ("action", "save")])
            #expect(unknownCurrency.status == 422)
            #expect(unknownCurrency.text.contains("is not an ISO 4217 code"))
            let tooPrecise = try await visitor.post(path, fields + [("line-0-description", "Work"), ("line-0-quantity", "1"), ("line-0-unitPrice", "12"), ("line-0-taxRate", "0"), ("currency", "JPY"), ("action", "save")])
            #expect(tooPrecise.status == 303)
            #expect(try await invoiceIdentifiersOnDisk(app.databaseURL).contains("INV-NEW"))
        }
    }

    @Test func aDuplicateInvoiceNumberIsA422BesideItsField() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let clientID = try await clientID("Beta Ltd", visitor: visitor)
            let (path, form) = try await visitor.openForm("/invoices/new?client=\(clientID)")
            let response = try await visitor.post(path, [("csrf", try #require(form.csrf)), ("identifier", "INV-1"),
                                                         ("line-0-description", "Work"), ("line-0-quantity", "1"), ("line-0-unitPrice", "1.00"), ("line-0-taxRate", "0"), ("currency", "EUR"), ("action", "save")])
            #expect(response.status == 422)
            #expect(response.text.contains("id=\"error-identifier\""))
        }
    }
}
