import Foundation
import Testing
@testable import InvoicesApp

/// A new client's form can add invoices: they are saved with the client, or not at all.
@Suite struct NestedInvoiceFormTests {
    /// Opens a new client form, types a name, adds one invoice with `identifier` and returns to
    /// the client form. Returns the client form's path and the CSRF token.
    private func clientWithInvoice(_ visitor: Visitor, name: String, identifier: String) async throws -> (String, String) {
        let (path, form) = try await visitor.openForm("/clients/new")
        let csrf = try #require(form.csrf)
        #expect(form.text.contains("value=\"add-invoice\""))
        let added = try await visitor.post(path, [("csrf", csrf), ("name", name), ("action", "add-invoice")])
        #expect(added.status == 303)
        let invoicePath = try #require(added.header("Location"))
        let invoiceForm = try await visitor.get(invoicePath)
        #expect(invoiceForm.status == 200)
        #expect(!invoiceForm.text.contains("name=\"client\""))
        let done = try await visitor.post(invoicePath, [("csrf", csrf), ("identifier", identifier), ("line-0-description", "Work"), ("line-0-quantity", "1"), ("line-0-unitPrice", "99.90"), ("line-0-taxRate", "0"),
                                                        ("currency", "CHF"), ("status", "sent"), ("issueDate", "2025-06-01"),
                                                        ("dueDate", "2025-07-01"), ("action", "save")])
        #expect(done.status == 303)
        #expect(done.header("Location") == path)
        let back = try await visitor.get(path)
        #expect(back.text.contains("value=\"\(name)\""))
        #expect(back.text.contains(identifier))
        return (path, csrf)
    }

    @Test func invoicesAddedInANewClientsFormAreSavedWithIt() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let (path, csrf) = try await clientWithInvoice(visitor, name: "Delta AG", identifier: "INV-D-1")
            #expect(try await invoiceIdentifiersOnDisk(app.databaseURL).contains("INV-D-1") == false)
            let saved = try await visitor.post(path, [("csrf", csrf), ("action", "save")])
            #expect(saved.status == 303)
            let page = try await visitor.get(try #require(saved.header("Location")))
            #expect(page.text.contains("INV-D-1"))
            #expect(page.text.contains("99.90 CHF"))
            #expect(try await clientsOnDisk(app.databaseURL).keys.contains("Delta AG"))
            #expect(try await invoiceIdentifiersOnDisk(app.databaseURL).contains("INV-D-1"))
        }
    }

    @Test func anInvoiceFormInsideAClientsFormHighlightsClientsInTheNavigation() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let (path, form) = try await visitor.openForm("/clients/new")
            let csrf = try #require(form.csrf)
            let added = try await visitor.post(path, [("csrf", csrf), ("name", "Foxtrot"), ("action", "add-invoice")])
            let invoiceForm = try await visitor.get(try #require(added.header("Location")))
            #expect(invoiceForm.status == 200)
            #expect(invoiceForm.text.contains(#"<a href="/clients" aria-current="page">Clients</a>"#))
            #expect(!invoiceForm.text.contains(#"<a href="/invoices" aria-current="page">"#))
            // An invoice's own form still belongs to Invoices.
            let (_, own) = try await visitor.openForm("/invoices/new")
            #expect(own.text.contains(#"<a href="/invoices" aria-current="page">Invoices</a>"#))
        }
    }

    @Test func anInvalidInvoiceKeepsTheClientUnsavedToo() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let (path, csrf) = try await clientWithInvoice(visitor, name: "Echo SA", identifier: "INV-1")   // taken
            let refused = try await visitor.post(path, [("csrf", csrf), ("action", "save")])
            #expect(refused.status == 422)
            #expect(refused.text.contains("href=\"#field-invoices\""))
            #expect(try await clientsOnDisk(app.databaseURL)["Echo SA"] == nil)
            let cancelled = try await visitor.post(path, [("csrf", csrf), ("action", "cancel")])
            #expect(cancelled.status == 303)
            #expect(try await clientsOnDisk(app.databaseURL)["Echo SA"] == nil)
            #expect(try await invoiceIdentifiersOnDisk(app.databaseURL) == ["INV-1", "INV-2", "INV-3"])
        }
    }
}
