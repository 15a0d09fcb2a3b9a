import Foundation
import Testing
@testable import InvoicesApp

/// Two forms on the same object, and deleting with confirmation.
@Suite struct ConflictAndDeleteTests {
    @Test func aSaveAfterAnotherFormChangedTheSamePropertyIs409ThenKeepMineWins() async throws {
        try await withDashboard { app in
            let alice = app.visitor(), bob = app.visitor()
            let id = try await clientID("Beta Ltd", visitor: alice)
            let (alicePath, aliceForm) = try await alice.openForm("/clients/\(id)/edit")
            let (bobPath, bobForm) = try await bob.openForm("/clients/\(id)/edit")
            let aliceSaved = try await alice.post(alicePath, [("csrf", try #require(aliceForm.csrf)), ("name", "Beta by Alice"),
                                                              ("action", "save")])
            #expect(aliceSaved.status == 303)
            let bobCSRF = try #require(bobForm.csrf)
            let conflict = try await bob.post(bobPath, [("csrf", bobCSRF), ("name", "Beta by Bob"), ("action", "save")])
            #expect(conflict.status == 409)
            #expect(conflict.text.contains("Beta Ltd"))        // when the form opened
            #expect(conflict.text.contains("Beta by Alice"))   // now
            #expect(conflict.text.contains("Beta by Bob"))     // the form's
            #expect(conflict.text.contains("value=\"keep-mine\""))
            #expect(conflict.text.contains("value=\"take-theirs\""))
            #expect(try await clientsOnDisk(app.databaseURL).keys.contains("Beta by Alice"))
            let kept = try await bob.post(bobPath, [("csrf", bobCSRF), ("action", "keep-mine")])
            #expect(kept.status == 303)
            #expect(try await clientsOnDisk(app.databaseURL).keys.contains("Beta by Bob"))
        }
    }

    @Test func takeTheirsKeepsTheOtherValue() async throws {
        try await withDashboard { app in
            let alice = app.visitor(), bob = app.visitor()
            let id = try await clientID("Beta Ltd", visitor: alice)
            let (alicePath, aliceForm) = try await alice.openForm("/clients/\(id)/edit")
            let (bobPath, bobForm) = try await bob.openForm("/clients/\(id)/edit")
            _ = try await alice.post(alicePath, [("csrf", try #require(aliceForm.csrf)), ("name", "Alice"), ("action", "save")])
            let bobCSRF = try #require(bobForm.csrf)
            #expect(try await bob.post(bobPath, [("csrf", bobCSRF), ("name", "Bob"), ("city", "Bern"),
                                                 ("action", "save")]).status == 409)
            #expect(try await bob.post(bobPath, [("csrf", bobCSRF), ("action", "take-theirs")]).status == 303)
            let onDisk = try await clientsOnDisk(app.databaseURL)
            #expect(onDisk["Alice"] == .some("Bern"))
            #expect(onDisk["Bob"] == nil)
        }
    }

    @Test func aConflictCanBeDecidedFieldByField() async throws {
        try await withDashboard { app in
            let alice = app.visitor(), bob = app.visitor()
            let id = try await clientID("Beta Ltd", visitor: alice)
            let (alicePath, aliceForm) = try await alice.openForm("/clients/\(id)/edit")
            let (bobPath, bobForm) = try await bob.openForm("/clients/\(id)/edit")
            _ = try await alice.post(alicePath, [("csrf", try #require(aliceForm.csrf)), ("name", "Alice"), ("city", "Oslo"),
                                                 ("action", "save")])
            let bobCSRF = try #require(bobForm.csrf)
            let conflict = try await bob.post(bobPath, [("csrf", bobCSRF), ("name", "Bob"), ("city", "Bern"), ("action", "save")])
            #expect(conflict.status == 409)
            #expect(conflict.text.contains("name=\"pick-name\""))
            #expect(conflict.text.contains("name=\"pick-city\""))
            let resolved = try await bob.post(bobPath, [("csrf", bobCSRF), ("pick-name", "theirs"), ("pick-city", "mine"),
                                                        ("action", "resolve")])
            #expect(resolved.status == 303)
            let onDisk = try await clientsOnDisk(app.databaseURL)
            #expect(onDisk["Alice"] == .some("Bern"))
        }
    }

    @Test func savingAClientDeletedMeanwhileIs409WithoutOverwriting() async throws {
        try await withDashboard { app in
            let alice = app.visitor(), bob = app.visitor()
            let id = try await clientID("Beta Ltd", visitor: alice)
            let (bobPath, bobForm) = try await bob.openForm("/clients/\(id)/edit")
            let confirm = try await alice.get("/clients/\(id)/delete")
            #expect(try await alice.post("/clients/\(id)/delete", [("csrf", try #require(confirm.csrf))]).status == 303)
            let bobCSRF = try #require(bobForm.csrf)
            let conflict = try await bob.post(bobPath, [("csrf", bobCSRF), ("name", "Zombie"), ("action", "save")])
            #expect(conflict.status == 409)
            #expect(conflict.text.contains("deleted while your form was open"))
            #expect(!conflict.text.contains("value=\"keep-mine\""))
            #expect(try await bob.post(bobPath, [("csrf", bobCSRF), ("action", "cancel")]).status == 303)
            #expect(try await clientsOnDisk(app.databaseURL)["Zombie"] == nil)
            #expect(try await bob.get("/clients/\(id)").status == 404)
        }
    }

    @Test func deletingAClientSaysHowManyInvoicesGoThenCascades() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let id = try await clientID("Acme Corp", visitor: visitor)
            let confirm = try await visitor.get("/clients/\(id)/delete")
            #expect(confirm.status == 200)
            #expect(confirm.text.contains("3 invoices"))
            let deleted = try await visitor.post("/clients/\(id)/delete", [("csrf", try #require(confirm.csrf))])
            #expect(deleted.status == 303)
            #expect(deleted.header("Location") == "/clients")
            #expect(try await visitor.get("/clients").text.contains("deleted"))
            #expect(try await visitor.get("/clients/\(id)").status == 404)
            #expect(try await clientsOnDisk(app.databaseURL)["Acme Corp"] == nil)
            #expect(try await invoiceIdentifiersOnDisk(app.databaseURL).isEmpty)
        }
    }

    @Test func deletingAnInvoiceAfterConfirmation() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let page = try jsonDecoder().decode(Page<InvoiceSummary>.self, from: try await visitor.get("/invoices.json?q=INV-2").body)
            let id = try #require(page.items.first?.id)
            let confirm = try await visitor.get("/invoices/\(id)/delete")
            #expect(confirm.text.contains("INV-2"))
            let deleted = try await visitor.post("/invoices/\(id)/delete", [("csrf", try #require(confirm.csrf))])
            #expect(deleted.status == 303)
            #expect(try await invoiceIdentifiersOnDisk(app.databaseURL) == ["INV-1", "INV-3"])
        }
    }
}
