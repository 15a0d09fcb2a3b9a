import Foundation
import Testing
@testable import InvoicesApp

/// Read pages are kept once rendered and served again (``PageCache``) only while nothing they
/// show has changed: every change is on the next page read, whoever made it.
@Suite struct KeptPageTests {
    /// Edits a client's name through its form and saves; returns the flash page's response.
    private func rename(_ id: Int64, to name: String, visitor: Visitor) async throws -> WebResponse {
        let (path, form) = try await visitor.openForm("/clients/\(id)/edit")
        let saved = try await visitor.post(path, [("csrf", try #require(form.csrf)), ("name", name), ("action", "save")])
        #expect(saved.status == 303)
        return try await visitor.get(try #require(saved.header("Location")))
    }

    @Test func aReadPageIsServedAgainWhileNothingChanges() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let first = try await visitor.get("/clients")
            let before = app.server.dashboard.keptPages.cache.statistics
            let second = try await visitor.get("/clients")
            #expect(second.status == 200)
            #expect(second.text == first.text)
            #expect(second.header("ETag") == first.header("ETag"))
            #expect(second.header("Cache-Control") == "no-cache")
            let after = app.server.dashboard.keptPages.cache.statistics
            #expect(after.hits == before.hits + 1)
            #expect(after.renders == before.renders)
        }
    }

    @Test func aKeptPageChangesRightAfterASave() async throws {
        try await withDashboard { app in
            let reader = app.visitor(), editor = app.visitor()
            let id = try await clientID("Acme Corp", visitor: reader)
            for path in ["/clients", "/clients/\(id)", "/invoices"] {
                for _ in 0..<2 { #expect(try await reader.get(path).text.contains("Acme Corp")) }
            }
            _ = try await rename(id, to: "Acme Renamed", visitor: editor)
            // The same keys as before the edit (no form is open any more): only the data's
            // generation tells the kept pages apart.
            for path in ["/clients", "/clients/\(id)", "/invoices"] {
                let page = try await reader.get(path)
                #expect(page.text.contains("Acme Renamed"), "\(path)")
                #expect(!page.text.contains("Acme Corp"), "\(path)")
            }
        }
    }

    @Test func aKeptPageChangesRightAfterADelete() async throws {
        try await withDashboard { app in
            let reader = app.visitor(), editor = app.visitor()
            let acme = try await clientID("Acme Corp", visitor: reader)
            for path in ["/invoices", "/clients/\(acme)", "/invoices?status=paid"] {
                for _ in 0..<2 { #expect(try await reader.get(path).text.contains("INV-2<"), "\(path)") }
            }
            let page = try jsonDecoder().decode(Page<InvoiceSummary>.self, from: try await reader.get("/invoices.json?q=INV-2").body)
            let id = try #require(page.items.first?.id)
            let confirm = try await editor.get("/invoices/\(id)/delete")
            #expect(try await editor.post("/invoices/\(id)/delete", [("csrf", try #require(confirm.csrf))]).status == 303)
            for path in ["/invoices", "/clients/\(acme)", "/invoices?status=paid"] {
                #expect(!(try await reader.get(path).text.contains("INV-2<")), "\(path)")
            }
            #expect(try await reader.get("/invoices/\(id)").status == 404)
        }
    }

    @Test func cancellingAFormTakesItsBeingEditedMarkOffKeptPages() async throws {
        try await withDashboard { app in
            let reader = app.visitor(), editor = app.visitor()
            let id = try await clientID("Acme Corp", visitor: reader)
            for _ in 0..<2 { #expect(!(try await reader.get("/clients").text.contains("being edited"))) }
            let (path, form) = try await editor.openForm("/clients/\(id)/edit")
            for _ in 0..<2 {
                #expect(try await reader.get("/clients").text.contains("being edited"))
                #expect(try await reader.get("/clients/\(id)").text.contains("being edited"))
            }
            #expect(try await editor.post(path, [("csrf", try #require(form.csrf)), ("action", "cancel")]).status == 303)
            #expect(!(try await reader.get("/clients").text.contains("being edited")))
            #expect(!(try await reader.get("/clients/\(id)").text.contains("being edited")))
        }
    }

    @Test func aFlashMessageIsShownOnceToItsVisitorAndNeverKept() async throws {
        try await withDashboard { app in
            let reader = app.visitor(), editor = app.visitor()
            let id = try await clientID("Acme Corp", visitor: reader)
            _ = try await reader.get("/clients/\(id)")
            let flashed = try await rename(id, to: "Acme Flash", visitor: editor)
            #expect(flashed.text.contains("class=\"flash\""))
            #expect(flashed.header("ETag") == nil)
            #expect(flashed.header("Cache-Control") == "no-store")
            for visitor in [editor, reader, editor] {
                let page = try await visitor.get("/clients/\(id)")
                #expect(page.text.contains("Acme Flash"))
                #expect(!page.text.contains("class=\"flash\""))
            }
        }
    }

    @Test func aConditionalGetIs304UntilTheDataChanges() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let first = try await visitor.get("/clients")
            let etag = try #require(first.header("ETag"))
            let unchanged = try await visitor.send("GET", "/clients", headers: ["If-None-Match": etag])
            #expect(unchanged.status == 304)
            #expect(unchanged.body.isEmpty)
            // A row written by an import context straight to the file, before any merge.
            try await insert(into: app.stack) { context in
                let client = Client(context: context)
                client.name = "Gamma GmbH"
            }
            let changed = try await visitor.send("GET", "/clients", headers: ["If-None-Match": etag])
            #expect(changed.status == 200)
            #expect(changed.text.contains("Gamma GmbH"))
            #expect(changed.header("ETag") != etag)
        }
    }

    @Test func savesKeptInTheWriterByDeferredPersistenceShowAtOnce() async throws {
        try await withDashboard(persist: .deferred(seconds: 60)) { app in
            let reader = app.visitor()
            let id = try await clientID("Acme Corp", visitor: reader)
            for _ in 0..<2 { _ = try await reader.get("/clients") }
            _ = try await rename(id, to: "Acme Deferred", visitor: app.visitor())
            #expect(try await clientsOnDisk(app.databaseURL)["Acme Deferred"] == nil)
            #expect(try await reader.get("/clients").text.contains("Acme Deferred"))
        }
    }

    @Test func anImportInThisProcessShowsInKeptPages() async throws {
        try await withDashboard { app in
            let reader = app.visitor()
            let acme = try await clientID("Acme Corp", visitor: reader)
            for _ in 0..<2 {
                #expect(!(try await reader.get("/invoices").text.contains("INV-LOCAL-1")))
                #expect(!(try await reader.get("/clients/\(acme)").text.contains("INV-LOCAL-1")))
            }
            try await app.stack.importCSV(Data("""
                client_name,client_email,identifier,amount,currency,status,issue_date,due_date,notes
                Acme Corp,billing@acme.test,INV-LOCAL-1,12.50,EUR,sent,2025-06-02,2025-07-02,

                """.utf8))
            #expect(try await reader.get("/invoices").text.contains("INV-LOCAL-1"))
            #expect(try await reader.get("/clients/\(acme)").text.contains("INV-LOCAL-1"))
        }
    }

    @Test func anImportByAnotherProcessShowsInKeptPagesWithinASecond() async throws {
        guard let invoices = ChildProcess.executable("invoices") else {
            Issue.record("the invoices executable was not built beside the tests")
            return
        }
        try await withDashboard { app in
            let reader = app.visitor()
            for _ in 0..<2 {
                #expect(!(try await reader.get("/invoices?q=REMOTE").text.contains("REMOTE-0002")))
                #expect(!(try await reader.get("/clients").text.contains("Remote Two")))
            }
            let csv = TestFiles.folder().appendingPathComponent("remote.csv")
            try Data("""
                client_name,client_email,identifier,amount,currency,status,issue_date,due_date,notes
                Remote Two,remote2@example.com,REMOTE-0002,12.50,EUR,sent,2026-11-01,2026-12-01,

                """.utf8).write(to: csv)
            let result = try await ChildProcess.run(invoices, ["import", csv.path, "--db", app.databaseURL.path])
            #expect(result.status == 0, "\(result.standardError)")
            // A page may be served as it was for a moment while it renders again (see
            // PageCache.maximumStaleness), never longer than a second.
            let deadline = ContinuousClock.now + .seconds(1)
            var seen = (invoices: false, clients: false)
            while !(seen.invoices && seen.clients) && ContinuousClock.now < deadline {
                seen.invoices = try await reader.get("/invoices?q=REMOTE").text.contains("REMOTE-0002")
                seen.clients = try await reader.get("/clients").text.contains("Remote Two")
                if !(seen.invoices && seen.clients) { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(seen.invoices)
            #expect(seen.clients)
        }
    }
}
