import Foundation
import Testing
@testable import InvoicesApp

/// The inspector follows the server as it changes: server-sent events to open pages, and
/// commits of other processes in the timeline.
@Suite struct InspectorLiveTests {
    @Test func anEventStreamClientReceivesTheChangeWithinASecond() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let id = try await clientKey("Acme Corp", visitor)
            let (path, form) = try await visitor.openForm("/clients/\(id)/edit")
            let csrf = try #require(form.csrf)

            let events = try RawHTTPClient(port: app.server.port, path: "/contexts/events")
            let opening = await events.read(until: "event: hello", timeout: 5)
            #expect(opening.hasPrefix("HTTP/1.1 200"))
            #expect(opening.contains("Content-Type: text/event-stream"))
            #expect(!opening.contains("Streamed Rename"))

            // Three changes, each timed from the POST to its event: the best must be under a
            // second (the suite's other tests keep both cores busy; a stall of the loaded test
            // machine is not the server's doing).
            var timings: [Duration] = []
            for name in ["Streamed Rename", "Streamed Again", "Streamed Once More"] {
                let start = ContinuousClock.now
                #expect(try await visitor.post(path, [("csrf", csrf), ("name", name)]).status == 303)
                let received = await events.read(until: name, timeout: 5)
                timings.append(ContinuousClock.now - start)
                #expect(received.contains("event: update"))
                #expect(received.contains("data: <li>name: <strong>\(name)</strong> · parent: Acme Corp</li>"))
            }
            #expect(timings.min() ?? .seconds(99) < .seconds(1), "the events came after \(timings)")
        }
    }

    @Test func thePageLoadsTheScriptThatFollowsTheEventsAndIsCompleteWithoutIt() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            _ = try await visitor.editClient("Acme Corp", applying: [("city", "Lyon")])
            let page = try await visitor.get("/contexts")
            #expect(page.text.contains("<script src=\"/static/inspector.js\" defer></script>"))
            #expect(page.text.contains("data-events=\"/contexts/events\""))
            // Without script the page already holds the current state.
            #expect(page.text.contains("city: <strong>Lyon</strong>"))
            let script = try await visitor.get("/static/inspector.js")
            #expect(script.status == 200)
            #expect(script.text.contains("new EventSource"))
            #expect(!script.text.contains("setInterval"))
        }
    }

    @Test func anImportInAnotherProcessShowsInTheTimeline() async throws {
        guard let invoices = ChildProcess.executable("invoices") else {
            Issue.record("the invoices executable was not built beside the tests")
            return
        }
        try await withDashboard { app in
            let visitor = app.visitor()
            #expect(try await visitor.inspectorSnapshot().otherProcesses.remoteChangesSeen == 0)
            let csv = TestFiles.folder().appendingPathComponent("remote.csv")
            try Data("""
                client_name,identifier,amount,currency,status,issue_date,due_date
                Remote Co,REMOTE-0001,12.50,EUR,sent,2026-11-01,2026-12-01

                """.utf8).write(to: csv)
            let result = try await ChildProcess.run(invoices, ["import", csv.path, "--db", app.databaseURL.path, "--quiet"])
            #expect(result.status == 0, "\(result.standardError)")

            let (snapshot, seen) = try await visitor.inspectorSnapshot(within: .seconds(2)) {
                $0.timeline.contains { $0.kind == .remote }
            }
            #expect(seen)
            #expect(snapshot.otherProcesses.remoteChangesSeen >= 1)
            // It arrived through the server's history consumer.
            #expect(snapshot.otherProcesses.consumer?.hasPrefix("\"dashboard\" merging into writer and main") == true)
            #expect(snapshot.otherProcesses.consumer?.contains(", 0 transactions merged") == false)
            // The server's own saves are never taken for another process's.
            #expect(snapshot.timeline.filter { $0.kind == .remote }.allSatisfy { $0.context == "coordinator" || $0.origin != nil })
            #expect(try await visitor.get("/contexts.md").text.contains("committed by another process (invoices import (pid "))
        }
    }

    @Test func theServersOwnSavesAreNotReportedAsRemoteChanges() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let beta = try await clientID("Beta Ltd", visitor: visitor)
            let acme = try await clientID("Acme Corp", visitor: visitor)
            let (path, csrf) = try await visitor.editClient("Beta Ltd", applying: [("city", "Oslo")])
            #expect(try await visitor.post(path, [("csrf", csrf), ("action", "save")]).status == 303)
            // Then another coordinator commits: once its change is reported (history is read
            // in order), the server's own earlier save has been looked at too.
            let elsewhere = try InvoicesStack(storeURL: app.databaseURL)
            let context = elsewhere.newImportContext(name: "elsewhere")
            try await context.perform {
                try context.existingObject(Client.self, primaryKey: acme)?.city = "Bern"
                try context.save()
            }
            let (snapshot, seen) = try await visitor.inspectorSnapshot(within: .seconds(10)) {
                $0.timeline.contains { $0.kind == .remote }
            }
            #expect(seen)
            // (One event per context it was merged into: writer and main.)
            let remote = snapshot.timeline.filter { $0.kind == .remote }
            #expect(!remote.isEmpty)
            #expect(remote.allSatisfy { $0.objectIDs.contains("Client/p\(acme)") && !$0.objectIDs.contains("Client/p\(beta)") })
            #expect(snapshot.timeline.contains { $0.kind == .save && $0.context == "writer" && $0.objectIDs.contains("Client/p\(beta)") })
        }
    }

    @Test func importContextsAreListedWhileTheyRunAndTheirMergesAreInTheTimeline() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let context = app.stack.newImportContext(name: "import")
            await context.perform {
                let client = Client(context: context)
                client.name = "Imported Co"
            }
            let running = try await visitor.inspectorSnapshot()
            let listed = try #require(running.contexts.first { $0.role == .import })
            #expect(listed.parent == "coordinator")
            #expect(listed.inserted == 1)
            #expect(listed.changes.first?.stage == .importContext)

            let saved = try await context.perform { () throws -> SavedChanges in
                let inserted = Set(context.insertedObjects.map(\.objectID))
                try context.save()
                return SavedChanges(inserted: inserted)
            }
            await app.stack.mergeImportSave(saved)
            let after = try await visitor.inspectorSnapshot()
            #expect(after.timeline.contains { $0.kind == .save && $0.context == listed.id && $0.summary.contains("to the file") })
            #expect(after.timeline.contains { $0.kind == .merge && $0.context == "writer" })
            #expect(after.timeline.contains { $0.kind == .merge && $0.context == "main" })
        }
    }
}
