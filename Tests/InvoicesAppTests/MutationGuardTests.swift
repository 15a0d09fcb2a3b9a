import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

/// Behaviours that a planted bug could break without any other test noticing (found by
/// mutation testing): the CSRF token compared in full, required fields read from the model,
/// main after a change is set aside, and the page cache under a clock that does not move.
@Suite struct MutationGuardTests {
    // MARK: CSRF

    @Test func aTokenWrongOnlyInItsLastCharacterIsRefusedAndNothingIsSaved() async throws {
        try await withDashboard { app in
            // given a visitor's edit form with a change applied
            let visitor = app.visitor()
            let (path, csrf) = try await visitor.editClient("Acme Corp", applying: [("city", "Basel")])
            // when the save is posted with the session's token, its last character changed
            let tampered = String(csrf.dropLast()) + (csrf.last == "0" ? "1" : "0")
            let refused = try await visitor.post(path, [("csrf", tampered), ("action", "save")])
            // then it is refused, and the file keeps the old city
            #expect(refused.status == 403)
            #expect(try await clientsOnDisk(app.databaseURL)["Acme Corp"] == .some("Zürich"))
            // and the right token still saves
            #expect(try await visitor.post(path, [("csrf", csrf), ("action", "save")]).status == 303)
            #expect(try await clientsOnDisk(app.databaseURL)["Acme Corp"] == .some("Basel"))
        }
    }

    // MARK: Forms from the model

    @Test func fieldsTheModelCannotLeaveEmptyAreMarkedRequired() async throws {
        try await withDashboard { app in
            // given the new-invoice form
            let visitor = app.visitor()
            let acme = try await clientID("Acme Corp", visitor: visitor)
            let (_, page) = try await visitor.openForm("/invoices/new?client=\(acme)")
            let html = page.text
            // then the attributes that are not optional are required, though the model does
            // not say `.required` of them (status, the dates); the amount is the lines' total
            #expect(html.contains(#"name="line-0-unitPrice""#))
            #expect(!html.contains(#"name="amount""#))
            for (name, label) in [("issueDate", "Issue date"), ("dueDate", "Due date")] {
                #expect(html.contains(#"<label for="field-\#(name)">\#(label) <span aria-hidden="true">*</span></label>"#),
                        "\(name) is not marked required")
            }
            #expect(html.contains(#"<select id="field-status" name="status" required"#))
            // and the optional notes are not, nor the number, given when the invoice is sent
            #expect(html.contains(#"<label for="field-notes">Notes</label>"#))
            #expect(html.contains(#"<label for="field-identifier">Invoice number</label>"#))
        }
    }

    // MARK: Set-aside changes

    @Test func aChangeSetAsideAtAFlushLeavesMainShowingTheFilesValue() async throws {
        // given a deferred stack whose main holds its copy of Acme (as while a page renders)
        let database = TestFiles.database()
        let stack = try InvoicesStack(storeURL: database, persist: .deferred(seconds: 5), model: nil,
                                      timekeeper: Timekeeper(ManualClock()))
        stack.main.retainsRegisteredObjects = true
        try await insert(into: stack) { $0.makeClient("Acme", city: "Zürich") }
        let main = stack.main
        let acme = try await main.perform { () throws -> ObjectID in
            try #require(try main.fetch(FetchRequest<Client>()).first).objectID
        }
        // and a saved edit waiting in the writer for its flush
        let scratchpad = stack.newScratchpad()
        try await scratchpad.perform { try scratchpad.existingObject(with: acme, as: Client.self).city = "Mine" }
        guard case .saved = await stack.save(scratchpad) else { Issue.record("not saved"); return }
        #expect(await Self.city(of: acme, in: main) == "Mine")

        // when another coordinator moves Acme first, and the flush meets the conflict
        let elsewhere = try InvoicesStack(storeURL: database)
        let other = elsewhere.newImportContext(name: "elsewhere")
        try await other.perform {
            try #require(try other.fetch(FetchRequest<Client>()).first).city = "Theirs"
            try other.save()
        }
        let report = await stack.persistence.flush()

        // then the edit is set aside, and main and the writer show what the file holds
        #expect(report.setAside.map(\.objectID) == [acme])
        #expect(await Self.city(of: acme, in: stack.writer) == "Theirs")
        #expect(await Self.city(of: acme, in: main) == "Theirs")
        _ = await stack.stopPersisting()
    }

    private static func city(of id: ObjectID, in context: ManagedObjectContext) async -> String? {
        await context.perform { (try? context.existingObject(with: id, as: Client.self))?.city }
    }

    // MARK: Page cache

    @Test func aPageAChangeInThisProcessMadeOldIsNotServedEvenWithinTheStalenessBound() async throws {
        // given a page kept at one generation, on a clock that does not move (so every kept
        // page is within any staleness bound)
        let cache = PageCache<String>(maximumStaleness: .seconds(600), timekeeper: Timekeeper(ManualClock()))
        let before = Generation(local: 1, store: 10)
        let afterLocalSave = Generation(local: 2, store: 11)
        _ = try await cache.page(for: "/clients", generation: before) { CachedPage(status: .ok, html: "v1") }
        // when this process saved (the local generation moved)
        #expect(cache.page(for: "/clients", generation: afterLocalSave) == nil)
        let served = try await cache.page(for: "/clients", generation: afterLocalSave) { CachedPage(status: .ok, html: "v2") }
        // then the request waits for the new rendering rather than getting the old page
        #expect(String(decoding: served.body, as: UTF8.self) == "v2")
        #expect(cache.statistics.staleHits == 0)
    }
}
