import Foundation
import Testing
@testable import InvoicesApp

/// `--persist deferred=SECONDS`: saves wait in the writer; stopping the server flushes them.
@Suite struct PersistenceTests {
    @Test func deferredSavesReachTheFileWhenTheServerStops() async throws {
        var databaseURL: URL?
        try await withDashboard(persist: .deferred(seconds: 600)) { app in
            databaseURL = app.databaseURL
            let visitor = app.visitor()
            let (path, form) = try await visitor.openForm("/clients/new")
            let saved = try await visitor.post(path, [("csrf", try #require(form.csrf)), ("name", "Later Ltd"), ("action", "save")])
            #expect(saved.status == 303)
            #expect(try await visitor.get("/clients").text.contains("Later Ltd"))   // main has it
            #expect(try await clientsOnDisk(app.databaseURL)["Later Ltd"] == nil)   // the file not yet
            await app.server.stop()
        }
        #expect(try await clientsOnDisk(try #require(databaseURL)).keys.contains("Later Ltd"))
    }
}
