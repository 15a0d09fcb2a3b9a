import Foundation
import Testing
@testable import InvoicesApp

/// The edit forms over HTTP: each on its own scratchpad, saved up the chain to disk.
@Suite struct FormFlowTests {
    @Test(arguments: StackStore.all) func openingAFormSetsASessionCookieAndRedirectsToTheForm(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            let visitor = app.visitor()
            let opened = try await visitor.get("/clients/new")
            #expect(opened.status == 303)
            #expect(opened.header("Location")?.hasPrefix("/forms/") == true)
            let cookie = try #require(opened.header("Set-Cookie"))
            #expect(cookie.hasPrefix("sid="))
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Lax"))
            let form = try await visitor.get(try #require(opened.header("Location")))
            #expect(form.status == 200)
            #expect(form.text.contains("<label for=\"field-name\">"))
            #expect(form.text.contains("name=\"email\""))
            #expect(form.csrf != nil)
        }
    }

    @Test func newClientIsRefusedWith422KeepingInputThenSavedToDiskWithAFlashShownOnce() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let (path, form) = try await visitor.openForm("/clients/new")
            let csrf = try #require(form.csrf)
            let invalid = try await visitor.post(path, [("csrf", csrf), ("name", " "), ("email", "not-an-address"),
                                                        ("city", "Basel"), ("action", "save")])
            #expect(invalid.status == 422)
            #expect(invalid.text.contains("class=\"error-summary\""))
            #expect(invalid.text.contains("Name is required."))
            #expect(invalid.text.contains("is not a valid address"))
            #expect(invalid.text.contains("aria-invalid=\"true\" aria-describedby=\"error-email\""))
            #expect(invalid.text.contains("id=\"error-email\""))
            #expect(invalid.text.contains("value=\"not-an-address\""))
            #expect(invalid.text.contains("value=\"Basel\""))
            #expect(try await clientsOnDisk(app.databaseURL)["Gamma GmbH"] == nil)

            let saved = try await visitor.post(path, [("csrf", csrf), ("name", "Gamma GmbH"), ("email", "hi@gamma.test"),
                                                      ("action", "save")])
            #expect(saved.status == 303)
            let location = try #require(saved.header("Location"))
            #expect(location.hasPrefix("/clients/"))
            // On disk before the 303, as a separate coordinator on the same file sees.
            #expect(try await clientsOnDisk(app.databaseURL)["Gamma GmbH"] == .some("Basel"))

            let page = try await visitor.get(location)
            #expect(page.text.contains("class=\"flash\""))
            #expect(page.text.contains("Gamma GmbH"))
            let again = try await visitor.get(location)
            #expect(!again.text.contains("class=\"flash\""))
            #expect(try await visitor.get(path).status == 410)
        }
    }

    @Test func cancelDropsTheScratchpadSavesNothingAndTheFormIsGone() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let (path, form) = try await visitor.openForm("/clients/new")
            let csrf = try #require(form.csrf)
            let applied = try await visitor.post(path, [("csrf", csrf), ("name", "Never Saved")])
            #expect(applied.status == 303)
            let cancelled = try await visitor.post(path, [("csrf", csrf), ("action", "cancel")])
            #expect(cancelled.status == 303)
            #expect(cancelled.header("Location") == "/clients")
            let gone = try await visitor.get(path)
            #expect(gone.status == 410)
            #expect(gone.text.contains("Start again"))
            #expect(try await visitor.post(path, [("csrf", csrf), ("action", "save")]).status == 410)
            #expect(try await clientsOnDisk(app.databaseURL)["Never Saved"] == nil)
            #expect(!(try await visitor.get("/clients")).text.contains("Never Saved"))
        }
    }

    @Test func applyingWithoutActionKeepsTheValuesInTheScratchpadOnly() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let id = try await clientID("Beta Ltd", visitor: visitor)
            let (path, form) = try await visitor.openForm("/clients/\(id)/edit")
            let csrf = try #require(form.csrf)
            #expect(form.text.contains("value=\"Beta Ltd\""))
            let applied = try await visitor.post(path, [("csrf", csrf), ("name", "Beta Renamed")])
            #expect(applied.status == 303)
            #expect(applied.header("Location") == path)
            let reloaded = try await visitor.get(path)
            #expect(reloaded.text.contains("value=\"Beta Renamed\""))
            #expect(!(try await visitor.get("/clients/\(id)")).text.contains("Beta Renamed"))
            #expect(try await clientsOnDisk(app.databaseURL).keys.contains("Beta Ltd"))
        }
    }

    @Test func aPostWithoutItsCSRFTokenIs403AndChangesNothing() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let id = try await clientID("Beta Ltd", visitor: visitor)
            let (path, _) = try await visitor.openForm("/clients/\(id)/edit")
            let missing = try await visitor.post(path, [("name", "Hijacked"), ("action", "save")])
            #expect(missing.status == 403)
            let wrong = try await visitor.post(path, [("csrf", "00"), ("name", "Hijacked"), ("action", "save")])
            #expect(wrong.status == 403)
            let delete = try await visitor.post("/clients/\(id)/delete", [])
            #expect(delete.status == 403)
            #expect(try await visitor.get(path).text.contains("value=\"Beta Ltd\""))
            #expect(try await clientsOnDisk(app.databaseURL).keys.contains("Beta Ltd"))
        }
    }

    @Test(arguments: StackStore.all) func twoSessionsNeverSeeEachOthersScratchpads(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            let alice = app.visitor(), bob = app.visitor()
            let (path, form) = try await alice.openForm("/clients/new")
            _ = try await alice.post(path, [("csrf", try #require(form.csrf)), ("name", "Alice's draft")])
            let seen = try await bob.get(path)
            #expect(seen.status == 410)
            #expect(!seen.text.contains("Alice"))
            _ = try await bob.get("/clients")
            let bobToken = try #require(try await bob.get("/clients/new").header("Location"))
            let bobForm = try await bob.get(bobToken)
            let posted = try await bob.post(path, [("csrf", try #require(bobForm.csrf)), ("action", "save")])
            #expect(posted.status == 410)
            let own = try await alice.get(path).text
            #expect(own.contains("Alice&#39;s draft") || own.contains("Alice's draft"))
        }
    }

    @Test(arguments: StackStore.all) func listRowsSayWhenAnObjectIsBeingEdited(_ store: StackStore) async throws {
        try await withDashboard(on: store) { app in
            let visitor = app.visitor()
            #expect(!(try await visitor.get("/clients")).text.contains("being edited"))
            let id = try await clientID("Acme Corp", visitor: visitor)
            let (path, form) = try await visitor.openForm("/clients/\(id)/edit")
            let other = app.visitor()
            #expect(try await other.get("/clients").text.contains("being edited"))
            _ = try await visitor.post(path, [("csrf", try #require(form.csrf)), ("action", "cancel")])
            #expect(!(try await other.get("/clients")).text.contains("being edited"))
        }
    }
}
