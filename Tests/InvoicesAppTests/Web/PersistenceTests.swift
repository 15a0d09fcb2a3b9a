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

    /// `invoices serve` exits without closing its store: after a clean stop, the database file
    /// itself (copied without its WAL) holds what was saved.
    @Test func aStoppedServerLeavesItsSavesInTheDatabaseFileItself() async throws {
        let url = try await seededDatabase()
        let server = try await ServeProcess(database: url)
        let visitor = server.visitor()
        let (path, form) = try await visitor.openForm("/clients/new")
        let saved = try await visitor.post(path, [("csrf", try #require(form.csrf)), ("name", "Kept Ltd"), ("action", "save")])
        #expect(saved.status == 303)
        let stopped = await server.stop()
        #expect(stopped.status == 0, "\(stopped.printed)")
        #expect(stopped.printed.contains("all changes are on disk"))

        let copy = url.deletingLastPathComponent().appendingPathComponent("copy-\(UUID().uuidString).sqlite")
        try FileManager.default.copyItem(at: url, to: copy)
        #expect(try await clientsOnDisk(copy).keys.contains("Kept Ltd"))
    }
}
