import Foundation
import ObjectGraph
import Testing
import WebServer
@testable import InvoicesApp

/// The timeline's other sources: scratchpads dropped by expiry, and remote changes delivered
/// as change sets (what the persistent history consumer sends).
@Suite struct InspectorTimelineTests {
    @Test func aFormWhoseSessionExpiresIsDroppedAndOpenPagesHearOfIt() async throws {
        // Long enough that a machine loaded by parallel builds (a request taking seconds)
        // opens the form before it expires.
        try await withShortSessions(idleTimeout: .seconds(8)) { port in
            let visitor = Visitor(port: port)
            _ = try await visitor.editClient("Acme Corp", applying: [("city", "Expiring")])
            let open = try await visitor.inspectorSnapshot()
            let scratchpad = try #require(open.contexts.first { $0.role == .scratchpad })

            // A page listening; nobody touches the session again.
            let events = try RawHTTPClient(port: port, path: "/contexts/events")
            _ = await events.read(until: "event: hello", timeout: 5)
            let pushed = await events.read(until: "its session expired", timeout: 20)
            #expect(pushed.contains("\(scratchpad.id) (client "))

            let after = try await Visitor(port: port).inspectorSnapshot()
            #expect(after.context(scratchpad.id) == nil)
            let dropped = try #require(after.timeline.first { $0.kind == .dropped })
            #expect(dropped.context == scratchpad.id)
            #expect(dropped.summary.contains("its session expired"))
        }
    }

    @Test func remoteChangeSetsMergedIntoWriterAndMainAreRemoteChangesInTheTimeline() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let pk = try await clientKey("Acme Corp", visitor)
            let id = try #require(app.stack.coordinator.managedObjectID(for: Client.self, primaryKey: pk))
            // What a history consumer does with another process's transaction.
            ManagedObjectContext.mergeChanges(fromRemoteContextSave: [.updated: [id]],
                                              into: [app.stack.writer, app.stack.main])
            let (snapshot, seen) = try await visitor.inspectorSnapshot(within: .seconds(2)) {
                $0.timeline.filter { $0.kind == .remote }.count >= 2
            }
            #expect(seen)
            let remote = snapshot.timeline.filter { $0.kind == .remote }
            #expect(Set(remote.map(\.context)) == ["writer", "main"])
            #expect(remote.allSatisfy { $0.objectIDs == ["Client/p\(pk)"] && $0.objects == 1 })
            #expect(snapshot.otherProcesses.lastRemoteChange != nil)
        }
    }

    /// A dashboard whose sessions expire after `idleTimeout`, on 127.0.0.1 and a free port.
    private func withShortSessions(idleTimeout: Duration, _ body: (Int) async throws -> Void) async throws {
        let stack = try InvoicesStack(storeURL: TestFiles.database())
        try await insert(into: stack) { context in
            let acme = Client(context: context)
            acme.name = "Acme Corp"
        }
        let dashboard = try Dashboard(stack: stack, templatesDirectory: repositoryResources.templates,
                                      idleTimeout: idleTimeout)
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0),
                                router: try dashboard.makeRouter(publicDirectory: repositoryResources.public))
        try server.start()
        do {
            try await body(server.port)
        } catch {
            await server.shutdown(timeout: .seconds(2))
            dashboard.inspector.stop()
            throw error
        }
        await server.shutdown(timeout: .seconds(2))
        dashboard.inspector.stop()
    }
}
