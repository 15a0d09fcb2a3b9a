import Foundation
import Testing
@testable import InvoicesApp

/// Two `invoices serve` processes on one database file, and one visitor whose requests land
/// on either, as behind a balancer without stickiness: sessions and open forms live in the
/// database, so any server continues any form, and a server's death loses no input.
@Suite(.serialized) struct SharedFormsTests {
    /// Two servers on a seeded file (Acme Corp, Beta Ltd).
    private static func twoServers(_ options: [String] = []) async throws -> (url: URL, a: ServeProcess, b: ServeProcess) {
        let url = try await seededDatabase()
        return (url, try await ServeProcess(database: url, options: options), try await ServeProcess(database: url, options: options))
    }

    /// Opens Beta's form on `visitor`'s server and applies `fields`: the form's path and token.
    private static func editBeta(_ visitor: Visitor, applying fields: [(String, String)]) async throws -> (path: String, csrf: String) {
        try await visitor.editClient("Beta Ltd", applying: fields)
    }

    /// Open forms the database holds, as a server's inspector says.
    private static func formsInDatabase(_ visitor: Visitor) async throws -> Int? {
        try await visitor.inspectorSnapshot().openForms.inDatabase
    }

    @Test func aFormOpenedOnOneServerIsContinuedOnAnotherAndSavedOnTheFirst() async throws {
        let (url, a, b) = try await Self.twoServers()
        let onA = a.visitor(), onB = onA.at(port: b.port)
        let (path, csrf) = try await Self.editBeta(onA, applying: [("name", "Beta Roaming")])

        // B never saw this visitor: it takes the session and the form from the database.
        #expect(try await onB.post(path, [("csrf", csrf), ("city", "Basel")]).status == 303)
        let shownOnB = try await onB.get(path).text
        #expect(shownOnB.contains("value=\"Beta Roaming\"") && shownOnB.contains("value=\"Basel\""))
        let inspectorB = try await b.visitor().inspectorSnapshot().openForms
        #expect(inspectorB.heldHere == 1 && inspectorB.inDatabase == 1)
        let page = try await b.visitor().get("/contexts.md").text
        #expect(page.contains("1 open form in 1 scratchpad held by this server; 1 open form scratchpad in the database"))

        // A's own copy is older than the database's now: A rebuilds it, with B's field.
        let shownOnA = try await onA.get(path).text
        #expect(shownOnA.contains("value=\"Beta Roaming\"") && shownOnA.contains("value=\"Basel\""))
        let saved = try await onA.post(path, [("csrf", csrf), ("action", "save")])
        #expect(saved.status == 303)
        #expect(try await clientsOnDisk(url)["Beta Roaming"] == "Basel")
        #expect(try await onB.get(path).status == 410)   // saved on A: closed everywhere
        #expect(try await Self.formsInDatabase(b.visitor()) == 0)
        _ = await a.stop()
        _ = await b.stop()
    }

    @Test func killingTheServerHoldingAFormMidEditLosesNoInput() async throws {
        let (url, a, b) = try await Self.twoServers()
        let onA = a.visitor(), onB = onA.at(port: b.port)
        let (newPath, newPage) = try await onA.openForm("/clients/new")
        let csrf = try #require(newPage.csrf)
        #expect(try await onA.post(newPath, [("csrf", csrf), ("name", "Kilo New"), ("city", "Kyiv")]).status == 303)
        let (editPath, _) = try await Self.editBeta(onA, applying: [("city", "Bern")])
        await a.kill9()

        // The visitor's next requests land on B: both forms are there, input intact, and save.
        let shown = try await onB.get(newPath)
        #expect(shown.status == 200 && shown.text.contains("value=\"Kilo New\"") && shown.text.contains("value=\"Kyiv\""))
        let savedNew = try await onB.post(newPath, [("csrf", csrf), ("action", "save")])
        #expect(savedNew.status == 303)
        let savedEdit = try await onB.post(editPath, [("csrf", csrf), ("action", "save")])
        #expect(savedEdit.status == 303)
        let onDisk = try await clientsOnDisk(url)
        #expect(onDisk["Kilo New"] == "Kyiv")
        #expect(onDisk["Beta Ltd"] == "Bern")
        _ = await b.stop()
    }

    @Test func aNewClientWithAnInvoiceAddedInItsFormMovesBetweenServersAndSaves() async throws {
        let (url, a, b) = try await Self.twoServers()
        let onA = a.visitor(), onB = onA.at(port: b.port)
        let (path, page) = try await onA.openForm("/clients/new")
        let csrf = try #require(page.csrf)
        let added = try await onA.post(path, [("csrf", csrf), ("name", "Echo Roaming"), ("action", "add-invoice")])
        let invoicePath = try #require(added.header("Location"))
        // The invoice added on A is filled in on B, with its line, and done.
        #expect(try await onB.get(invoicePath).status == 200)
        let done = try await onB.post(invoicePath, [("csrf", csrf), ("identifier", "INV-E-1"), ("line-0-description", "Work"),
                                                   ("line-0-quantity", "2"), ("line-0-unitPrice", "10.25"),
                                                   ("line-0-taxRate", "0"), ("currency", "CHF"), ("status", "sent"),
                                                   ("issueDate", "2025-06-01"), ("dueDate", "2025-07-01"), ("action", "save")])
        #expect(done.status == 303 && done.header("Location") == path)
        await a.kill9()
        let owner = try await onB.get(path).text
        #expect(owner.contains("value=\"Echo Roaming\"") && owner.contains("INV-E-1"))
        let saved = try await onB.post(path, [("csrf", csrf), ("action", "save")])
        #expect(saved.status == 303)
        #expect(try await clientsOnDisk(url).keys.contains("Echo Roaming"))
        #expect(try await invoiceIdentifiersOnDisk(url).contains("INV-E-1"))
        let shown = try await onB.get(try #require(saved.header("Location"))).text
        #expect(shown.contains("20.50 CHF"))
        _ = await b.stop()
    }

    @Test func aRebuiltFormWhoseBaseWasChangedMeanwhileAnswers409AndLosesNothing() async throws {
        let (url, a, b) = try await Self.twoServers()
        let mine = a.visitor(), mineOnB = mine.at(port: b.port)
        // The visitor reads Beta on A and types a city; the name they read is "Beta Ltd".
        let (path, csrf) = try await Self.editBeta(mine, applying: [("city", "Lyon")])
        // Someone else renames Beta on B and saves.
        let other = b.visitor()
        let (otherPath, otherCSRF) = try await Self.editBeta(other, applying: [("name", "Beta Theirs")])
        #expect(try await other.post(otherPath, [("csrf", otherCSRF), ("action", "save")]).status == 303)
        await a.kill9()

        // B rebuilds the visitor's form from the database: the name they change was changed
        // since they read it, so the save is a conflict, not an overwrite.
        let conflict = try await mineOnB.post(path, [("csrf", csrf), ("name", "Beta Mine"), ("action", "save")])
        #expect(conflict.status == 409)
        #expect(conflict.text.contains("Beta Theirs") && conflict.text.contains("Beta Mine"))
        #expect(try await clientsOnDisk(url)["Beta Theirs"] != nil)
        let kept = try await mineOnB.get(path).text
        #expect(kept.contains("value=\"Beta Mine\"") && kept.contains("value=\"Lyon\""))
        #expect(try await mineOnB.post(path, [("csrf", csrf), ("action", "keep-mine")]).status == 303)
        #expect(try await clientsOnDisk(url)["Beta Mine"] == "Lyon")
        _ = await b.stop()
    }

    @Test func aFormOnlyReadBeforeAnotherSaveStillMeetsItWhenRebuiltElsewhere() async throws {
        let (url, a, b) = try await Self.twoServers()
        let mine = a.visitor(), mineOnB = mine.at(port: b.port)
        // The visitor opens Beta's form on A and types nothing yet: what they read is all
        // the database holds of the form.
        let (path, page) = try await mine.openForm("/clients/\(try await clientID("Beta Ltd", visitor: mine))/edit")
        let csrf = try #require(page.csrf)
        let other = b.visitor()
        let (otherPath, otherCSRF) = try await Self.editBeta(other, applying: [("name", "Beta Theirs")])
        #expect(try await other.post(otherPath, [("csrf", otherCSRF), ("action", "save")]).status == 303)
        await a.kill9()

        let conflict = try await mineOnB.post(path, [("csrf", csrf), ("name", "Beta Mine"), ("action", "save")])
        #expect(conflict.status == 409)
        #expect(try await clientsOnDisk(url)["Beta Theirs"] != nil)
        #expect(try await mineOnB.get(path).text.contains("value=\"Beta Mine\""))
        _ = await b.stop()
    }

    @Test func typingIntoAFormOnAnotherServerIsNoDataChangeForThisOne() async throws {
        try await withDashboard { app in
            let other = try await ServeProcess(database: app.databaseURL)
            let reader = app.visitor()
            _ = try await reader.get("/clients")
            let before = app.server.dashboard.keptPages.cache.statistics
            let history = try app.stack.coordinator.currentHistoryToken()
            // A visitor of the other server types, field after field: every POST writes the
            // form to the database, and none of it is data.
            let typist = other.visitor()
            let (path, csrf) = try await Self.editBeta(typist, applying: [("city", "T")])
            for keystroke in 0..<10 {
                #expect(try await typist.post(path, [("csrf", csrf), ("city", "Typed \(keystroke)")]).status == 303)
            }
            try await Task.sleep(for: .milliseconds(50))
            _ = try await reader.get("/clients")
            let after = app.server.dashboard.keptPages.cache.statistics
            #expect(after.renders == before.renders, "the kept page was dropped by form writes")
            #expect(after.hits == before.hits + 1)
            #expect(try app.stack.coordinator.currentHistoryToken() == history)   // no history pages of typing
            // A save is a data change: the page is read again.
            #expect(try await typist.post(path, [("csrf", csrf), ("action", "save")]).status == 303)
            let deadline = ContinuousClock.now + .seconds(1)
            var shown = false
            while !shown && ContinuousClock.now < deadline {
                shown = try await reader.get("/clients").text.contains("Typed 9")
                if !shown { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(shown)
            _ = await other.stop()
        }
    }

    @Test func aFieldPostWhileTheDatabaseIsLockedAnswers503AndTheInputIsStoredWithTheNextOne() async throws {
        let url = try await seededDatabase()
        let server = try await ServeProcess(database: url, options: ["--busy-timeout", "0.3"])
        let visitor = server.visitor()
        let (path, csrf) = try await Self.editBeta(visitor, applying: [("name", "Beta Held")])
        let holder = try await WriteLockHolder.hold(url)
        let refused = try await visitor.post(path, [("csrf", csrf), ("city", "Held City")])
        await holder.release()
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "5")
        #expect(refused.text.contains("only this server holds it"))
        #expect(!refused.text.contains(url.path) && !refused.text.contains("_og_record"))   // words, not the file or SQL
        // The lock is gone: the next change stores everything, and another server sees it.
        #expect(try await visitor.post(path, [("csrf", csrf), ("country", "CH")]).status == 303)
        let other = try await ServeProcess(database: url)
        await server.kill9()
        let shown = try await visitor.at(port: other.port).get(path).text
        #expect(shown.contains("value=\"Beta Held\"") && shown.contains("value=\"Held City\"") && shown.contains("value=\"CH\""))
        _ = await other.stop()
    }

    @Test func cancelOnOneServerDropsAFormOpenedOnAnother() async throws {
        let (url, a, b) = try await Self.twoServers()
        let onA = a.visitor(), onB = onA.at(port: b.port)
        let (path, csrf) = try await Self.editBeta(onA, applying: [("city", "Oslo")])
        #expect(try await Self.formsInDatabase(b.visitor()) == 1)
        let cancelled = try await onB.post(path, [("csrf", csrf), ("action", "cancel")])
        #expect(cancelled.status == 303)
        #expect(try await onA.get(path).status == 410)   // A held it in memory: the database says it is closed
        #expect(try await onB.get(path).status == 410)
        #expect(try await Self.formsInDatabase(a.visitor()) == 0)
        #expect(try await clientsOnDisk(url)["Beta Ltd"] == .some(nil))
        _ = await a.stop()
        _ = await b.stop()
    }

    @Test func aForgedOrExpiredSessionCookieIsRefusedOnEveryServer() async throws {
        let (url, a, b) = try await Self.twoServers(["--session-timeout", "1"])
        let onA = a.visitor(), onB = onA.at(port: b.port)
        let (path, csrf) = try await Self.editBeta(onA, applying: [("city", "Rome")])

        // A cookie nobody issued is no session, on either server.
        let forger = Visitor(port: b.port)
        let forged = try await forger.send("POST", path, headers: ["Cookie": "sid=" + Tokens.random(),
                                                                   "Content-Type": "application/x-www-form-urlencoded"],
                                           body: Data("csrf=\(csrf)&action=save".utf8))
        #expect(forged.status == 403)
        #expect(try await onB.get(path).status == 200)   // the real visitor's form is untouched

        // Past the timeout the session is over everywhere, and its records are purged.
        try await Task.sleep(for: .milliseconds(1_500))
        let expired = try await onB.post(path, [("csrf", csrf), ("action", "save")])
        #expect(expired.status == 403)
        #expect(expired.text.contains("session has expired"))
        #expect(try await onA.get(path).status == 410)
        let records = try InvoicesStack(storeURL: url).coordinator
        #expect(try records.records(named: "forms").count(asOf: .distantPast) == 0)
        #expect(try records.records(named: "sessions").count(asOf: .distantPast) == 0)
        #expect(try await clientsOnDisk(url)["Beta Ltd"] == .some(nil))
        _ = await a.stop()
        _ = await b.stop()
    }
}
