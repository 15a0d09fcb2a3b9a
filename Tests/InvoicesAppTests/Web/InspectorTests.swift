import Foundation
import Testing
@testable import InvoicesApp

/// The live context inspector over HTTP: pending changes in scratchpads, their way up the
/// chain to disk, dropped scratchpads, save checks and per-object chains.
@Suite struct InspectorTests {
    @Test func aChangedFieldShowsAsAPendingUpdateInItsScratchpadWithOldAndNewValues() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let pk = try await clientKey("Acme Corp", visitor)
            _ = try await visitor.editClient("Acme Corp", applying: [("name", "Acme Renamed")])

            let snapshot = try await visitor.inspectorSnapshot()
            let scratchpad = try #require(snapshot.scratchpad(editing: "client \(pk)"))
            #expect(scratchpad.parent == "main")
            #expect(scratchpad.queue == "private queue")
            #expect(scratchpad.updated == 1 && scratchpad.inserted == 0)
            #expect(scratchpad.saveCheck?.wouldSave == true)
            let change = try #require(scratchpad.changes.first)
            #expect(change.object == "Client/p\(pk)")
            #expect(change.kind == "updated")
            #expect(change.stage == .scratchpad)
            #expect(!change.temporaryID)
            let name = try #require(change.properties.first { $0.name == "name" })
            #expect(name.pending == "Acme Renamed")
            #expect(name.committed == "Acme Corp")
            #expect(name.parent == "Acme Corp")
            #expect(change.properties.count == 1)
            // Main and the writer hold nothing yet.
            #expect(snapshot.context("main")?.pendingCount == 0)
            #expect(snapshot.context("writer")?.pendingCount == 0)

            let markdown = try await visitor.get("/contexts.md")
            #expect(markdown.status == 200)
            #expect(markdown.header("Content-Type")?.hasPrefix("text/markdown") == true)
            #expect(markdown.text.contains("### \(scratchpad.id)"))
            #expect(markdown.text.contains("- updated [Client/p\(pk)](/contexts/\(scratchpad.id)/Client/\(pk)): only in the scratchpad"))
            #expect(markdown.text.contains("  - name: **Acme Renamed** · parent: Acme Corp"))

            let page = try await visitor.get("/contexts")
            #expect(page.status == 200)
            #expect(page.text.contains("<h3 id=\"\(scratchpad.id)\">"))
            #expect(page.text.contains("name: <strong>Acme Renamed</strong> · parent: Acme Corp"))
            #expect(page.text.contains("class=\"stack-picture\""))
            #expect(page.text.contains("href=\"#\(scratchpad.id)\""))
        }
    }

    @Test func aSavedChangePassesThroughMainAndTheWriterToDisk() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let pk = try await clientKey("Beta Ltd", visitor)
            let (path, csrf) = try await visitor.editClient("Beta Ltd", applying: [("name", "Beta Saved")])
            let scratchpad = try #require(try await visitor.inspectorSnapshot().scratchpad(editing: "client \(pk)"))

            let saved = try await visitor.post(path, [("csrf", csrf), ("action", "save")])
            #expect(saved.status == 303)

            let snapshot = try await visitor.inspectorSnapshot()
            #expect(snapshot.pendingChanges(of: "Client/p\(pk)").isEmpty)
            #expect(snapshot.scratchpad(editing: "client \(pk)") == nil)
            // One save through, settled top down (oldest first): the writer wrote the file,
            // then main and the scratchpad took the saved values.
            let saves = snapshot.timeline.filter { $0.kind == .save && $0.objectIDs.contains("Client/p\(pk)") }.reversed()
            #expect(saves.map(\.context) == ["writer", "main", scratchpad.id])
            #expect(saves.allSatisfy { $0.objects == 1 && $0.milliseconds != nil })
            #expect(saves.first?.summary.contains("to the file") == true)
            let onDisk = try #require(snapshot.journey.first { $0.object == "Client/p\(pk)" })
            #expect(onDisk.stage == .disk)
            #expect(onDisk.writtenBy == "writer")
            #expect(try await clientsOnDisk(app.databaseURL).keys.contains("Beta Saved"))
            let markdown = try await visitor.get("/contexts.md")
            #expect(markdown.text.contains("- updated Client/p\(pk): on disk (written "))
        }
    }

    @Test func withDeferredPersistenceTheWritersPendingChangeIsVisibleUntilTheFlush() async throws {
        // Long enough that a loaded machine still reads the page before the flush.
        try await withDashboard(persist: .deferred(seconds: 6)) { app in
            let visitor = app.visitor()
            let pk = try await clientKey("Beta Ltd", visitor)
            let (path, csrf) = try await visitor.editClient("Beta Ltd", applying: [("name", "Beta Deferred")])
            #expect(try await visitor.post(path, [("csrf", csrf), ("action", "save")]).status == 303)

            let held = try await visitor.inspectorSnapshot()
            let pending = held.pendingChanges(of: "Client/p\(pk)")
            #expect(pending.map(\.context.id) == ["writer"])
            let change = try #require(pending.first?.change)
            #expect(change.stage == .writer)
            #expect(change.properties.first { $0.name == "name" }?.pending == "Beta Deferred")
            #expect(change.properties.first { $0.name == "name" }?.parent == "Beta Ltd")   // the file's value
            #expect(held.persist == "deferred=6")
            #expect(try await visitor.get("/contexts.md").text.contains("in the writer, not on disk yet"))
            #expect(try await clientsOnDisk(app.databaseURL).keys.contains("Beta Ltd"))

            let (flushed, done) = try await visitor.inspectorSnapshot(within: .seconds(20)) {
                $0.pendingChanges(of: "Client/p\(pk)").isEmpty
            }
            #expect(done)
            #expect(flushed.journey.contains { $0.object == "Client/p\(pk)" && $0.stage == .disk })
            #expect(try await clientsOnDisk(app.databaseURL).keys.contains("Beta Deferred"))
        }
    }

    @Test func aCancelledFormsScratchpadIsGoneAndItsDropIsInTheTimeline() async throws {
        try await withDashboard { app in
            let alice = app.visitor(), bob = app.visitor()
            let acme = try await clientKey("Acme Corp", alice), beta = try await clientKey("Beta Ltd", bob)
            _ = try await alice.editClient("Acme Corp", applying: [("city", "Basel")])
            let (bobPath, bobCSRF) = try await bob.editClient("Beta Ltd", applying: [("city", "Bern")])
            let before = try await alice.inspectorSnapshot()
            let bobs = try #require(before.scratchpad(editing: "client \(beta)"))
            #expect(before.scratchpad(editing: "client \(acme)") != nil)

            #expect(try await bob.post(bobPath, [("csrf", bobCSRF), ("action", "cancel")]).status == 303)

            let after = try await alice.inspectorSnapshot()
            #expect(after.context(bobs.id) == nil)
            #expect(after.pendingChanges(of: "Client/p\(beta)").isEmpty)
            #expect(after.scratchpad(editing: "client \(acme)")?.changes.first?.properties.first?.pending == "Basel")
            let dropped = try #require(after.timeline.first { $0.kind == .dropped })
            #expect(dropped.context == bobs.id)
            #expect(dropped.summary.contains("cancelled"))
            #expect(try await clientsOnDisk(app.databaseURL)["Beta Ltd"] == .some(nil))
        }
    }

    @Test func aScratchpadThatWouldNotSaveSaysWhyAndTheRefusedSaveIsInTheTimeline() async throws {
        try await withDashboard { app in
            let alice = app.visitor(), bob = app.visitor()
            let pk = try await clientKey("Beta Ltd", alice)
            let (alicePath, aliceCSRF) = try await alice.editClient("Beta Ltd", applying: [("name", "Beta by Alice")])
            let (bobPath, bobCSRF) = try await bob.editClient("Beta Ltd", applying: [("name", "Beta by Bob")])
            #expect(try await alice.post(alicePath, [("csrf", aliceCSRF), ("action", "save")]).status == 303)

            let snapshot = try await bob.inspectorSnapshot()
            let bobs = try #require(snapshot.scratchpad(editing: "client \(pk)"))
            let check = try #require(bobs.saveCheck)
            #expect(!check.wouldSave)
            #expect(check.conflicts.count == 1)
            #expect(check.conflicts.first?.contains("name is Beta by Alice in the parent now") == true)
            let name = try #require(bobs.changes.first?.properties.first { $0.name == "name" })
            #expect(name.parent == "Beta by Alice")
            #expect(name.committed == "Beta Ltd")
            #expect(name.parentChangedMeanwhile)
            let markdown = try await bob.get("/contexts.md").text
            #expect(markdown.contains("- Save now: would not save now"))
            #expect(markdown.contains("parent now: Beta by Alice, read as Beta Ltd · conflict"))

            #expect(try await bob.post(bobPath, [("csrf", bobCSRF), ("action", "save")]).status == 409)
            let conflict = try #require(try await bob.inspectorSnapshot().timeline.first { $0.kind == .conflict })
            #expect(conflict.context == bobs.id)
            #expect(conflict.summary.contains("name"))

            // An empty name would not pass validation: the check says so before any save.
            #expect(try await bob.post(bobPath, [("csrf", bobCSRF), ("name", " ")]).status == 303)
            let invalid = try #require(try await bob.inspectorSnapshot().context(bobs.id)?.saveCheck)
            #expect(invalid.validationErrors.contains { $0.contains("name") })
        }
    }

    @Test func theObjectPageShowsItsValuesInEachContextOfTheChainSideBySide() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let pk = try await clientKey("Acme Corp", visitor)
            _ = try await visitor.editClient("Acme Corp", applying: [("name", "Acme Chained")])
            let change = try #require(try await visitor.inspectorSnapshot().pendingChanges(of: "Client/p\(pk)").first)
            #expect(change.change.path == "/contexts/\(change.context.id)/Client/\(pk)")

            let page = try await visitor.get(change.change.path)
            #expect(page.status == 200)
            #expect(page.text.contains("<strong>Acme Chained</strong>"))
            #expect(page.text.contains("Acme Corp"))
            let json = try await visitor.get(change.change.path + ".json")
            let chain = try jsonDecoder().decode(ObjectChain.self, from: json.body)
            #expect(chain.columns.map(\.id) == [change.context.id, "main", "writer", "store"])
            let name = try #require(chain.rows.first { $0.property == "name" })
            #expect(name.cells.map(\.value) == ["Acme Chained", "Acme Corp", "Acme Corp", "Acme Corp"])
            #expect(name.cells.first?.changed == true)
            #expect(chain.columns.last?.state == "committed")

            #expect(try await visitor.get("/contexts/scratchpad-999/Client/\(pk)").status == 404)
            #expect(try await visitor.get("/contexts/main/Nope/\(pk)").status == 404)
            #expect(try await visitor.get("/contexts/main/Client/not-a-key").status == 400)
        }
    }

    @Test func aNewObjectIsListedWithItsTemporaryIDAndCanBeLookedUpByIt() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let (path, form) = try await visitor.openForm("/clients/new")
            #expect(try await visitor.post(path, [("csrf", try #require(form.csrf)), ("name", "Newco")]).status == 303)
            let snapshot = try await visitor.inspectorSnapshot()
            let scratchpad = try #require(snapshot.scratchpad(editing: "new client"))
            let change = try #require(scratchpad.changes.first)
            #expect(change.kind == "inserted")
            #expect(change.temporaryID)
            #expect(change.key.hasPrefix("t"))
            #expect(change.properties.contains { $0.name == "name" && $0.pending == "Newco" })
            #expect(try await visitor.get("/contexts.md").text.contains("(temporary ID)"))
            let page = try await visitor.get(change.path)
            #expect(page.status == 200)
            #expect(page.text.contains("not on disk yet"))
        }
    }
}
