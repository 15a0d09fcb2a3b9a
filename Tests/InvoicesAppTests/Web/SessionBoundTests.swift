import Foundation
import Testing
@testable import InvoicesApp

/// Anonymous visitors opening forms cannot grow the server without bound: past the limit of
/// open forms, the visitor idle longest loses a form and is told so on their next page.
@Suite struct SessionBoundTests {
    @Test func pastTheFormLimitTheIdlestVisitorsFormClosesAndTheyAreToldOnTheirNextPage() async throws {
        let url = TestFiles.database()
        let stack = try InvoicesStack(storeURL: url)
        try await insertTwoClients(into: stack)
        let server = try DashboardServer(stack: stack, host: "127.0.0.1", port: 0, resources: repositoryResources,
                                         today: nil, inspectorToken: nil, logger: .init(label: "test"),
                                         editable: Dashboard.editable, timekeeper: .continuous,
                                         sessionLimits: SessionLimits(formsPerSession: 20, forms: 5, sessions: 100))
        do {
            let first = Visitor(port: server.port)
            let (firstForm, _) = try await first.openForm("/clients/new")
            // five other visitors open a form each: six in all, one more than the server holds
            for _ in 0..<5 { _ = try await Visitor(port: server.port).openForm("/clients/new") }
            #expect(server.dashboard.sessions.formCount == 5)
            // the first visitor's form is gone, and the next page they read says why
            let gone = try await first.get(firstForm)
            #expect(gone.status == 410)
            #expect(gone.text.contains("was closed to make room"))
            #expect(try await first.get("/clients").text.contains("was closed to make room") == false)   // told once
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
