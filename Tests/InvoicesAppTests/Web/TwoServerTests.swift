import CSQLite
import Foundation
import Testing
@testable import InvoicesApp

/// Two `invoices serve` processes on one SQLite file, and a server killed with -9: a saved
/// form is saved (303 means on disk), a conflict is a 409, never a 500, and nothing poisons
/// later saves.
@Suite(.serialized) struct TwoServerTests {
    /// One visitor's saves: each round opens the client's form, renames it, saves; a 409
    /// cancels the form. Returns each save's status with the name it asked for.
    private static func storm(_ server: ServeProcess, label: String, client: Int64,
                              rounds: Int) async throws -> [(status: Int, name: String)] {
        let visitor = server.visitor()
        var results: [(Int, String)] = []
        for round in 0..<rounds {
            let (path, form) = try await visitor.openForm("/clients/\(client)/edit")
            let csrf = try #require(form.csrf)
            let name = "Acme \(label)-\(round)"
            let saved = try await visitor.post(path, [("csrf", csrf), ("name", name), ("action", "save")])
            results.append((saved.status, name))
            if saved.status == 409 { _ = try await visitor.post(path, [("csrf", csrf), ("action", "cancel")]) }
        }
        return results
    }

    @Test func aStormOfSavesOfOneClientFromTwoServersAnswersOnly303Or409AndNothingIsPoisoned() async throws {
        let url = try await seededDatabase()
        let first = try await ServeProcess(database: url), second = try await ServeProcess(database: url)
        let acme = try await clientID("Acme Corp", visitor: first.visitor())
        let started = ContinuousClock.now
        let results = try await withThrowingTaskGroup(of: [(status: Int, name: String)].self) { group in
            for (server, label) in [(first, "A"), (second, "B")] {
                for n in 0..<3 {
                    group.addTask { try await Self.storm(server, label: "\(label)\(n)", client: acme, rounds: 8) }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let elapsed = ContinuousClock.now - started
        let statuses = results.map(\.status)
        #expect(Set(statuses).isSubset(of: [303, 409]), "statuses: \(statuses)")
        let acknowledged = Set(results.filter { $0.status == 303 }.map(\.name))
        #expect(!acknowledged.isEmpty)
        let stored = try await clientsOnDisk(url).keys.filter { $0.hasPrefix("Acme ") }
        #expect(stored.count == 1 && acknowledged.contains(stored[0]), "on disk: \(stored)")
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("storm: \(statuses.count) saves in \(String(format: "%.2f", seconds)) s "
              + "(\(String(format: "%.0f", Double(statuses.count) / seconds)) saves/s): "
              + "303 × \(statuses.filter { $0 == 303 }.count), 409 × \(statuses.filter { $0 == 409 }.count)")

        // Afterwards both servers still save: another client, and Acme again.
        for (server, name) in [(first, "Beta from A"), (second, "Beta from B")] {
            let visitor = server.visitor()
            let (path, csrf) = try await visitor.editClient(try await Self.currentBetaName(url), applying: [("name", name)])
            #expect(try await visitor.post(path, [("csrf", csrf), ("action", "save")]).status == 303)
            #expect(try await clientsOnDisk(url)[name] != nil)
        }
        for server in [first, second] {
            let stopped = await server.stop()
            #expect(stopped.status == 0, "\(stopped.printed)")
            #expect(stopped.printed.contains("all changes are on disk"))
        }
    }

    private static func currentBetaName(_ url: URL) async throws -> String {
        try #require(try await clientsOnDisk(url).keys.first { $0.hasPrefix("Beta") })
    }

    @Test func everyAcknowledgedSaveSurvivesAKillNineInTheMiddleOfAStorm() async throws {
        let url = try await seededDatabase()
        let server = try await ServeProcess(database: url)
        let deadline = ContinuousClock.now + .seconds(1.5)
        async let killed: Void = {
            try? await Task.sleep(until: deadline)
            await server.kill9()
        }()
        let acknowledged = await withTaskGroup(of: [String].self) { group in
            for n in 0..<4 {
                group.addTask {
                    let visitor = server.visitor()
                    var saved: [String] = []
                    for round in 0..<10_000 {
                        let name = "Kill \(n)-\(round)"
                        guard let (path, form) = try? await visitor.openForm("/clients/new"), let csrf = form.csrf,
                              let response = try? await visitor.post(path, [("csrf", csrf), ("name", name), ("action", "save")])
                        else { break }      // the server is gone
                        if response.status == 303 { saved.append(name) }
                    }
                    return saved
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        await killed
        #expect(acknowledged.count > 10, "only \(acknowledged.count) saves before the kill")
        // Restarted on the same file: every acknowledged client is there, and the file is sound.
        let restarted = try await ServeProcess(database: url)
        let onDisk = try await clientsOnDisk(url)
        let missing = acknowledged.filter { onDisk[$0] == nil }
        #expect(missing.isEmpty, "acknowledged but missing after kill -9: \(missing)")
        #expect(try Self.integrityCheck(url) == "ok")
        #expect(try await restarted.visitor().get("/clients?q=Kill").status == 200)
        _ = await restarted.stop()
    }

    /// A new invoice changes none of its client's own fields: a rename of the client on one
    /// server, from a form opened before the other server saved a new invoice for it, is no
    /// conflict (a 303, not a 409), and a new invoice saved after a rename neither.
    @Test func aNewInvoiceOnOneServerIsNoConflictWithAnEditOfItsClientOnTheOther() async throws {
        let url = try await seededDatabase()
        let first = try await ServeProcess(database: url), second = try await ServeProcess(database: url)
        let alice = first.visitor(), bob = second.visitor()
        let id = try await clientID("Beta Ltd", visitor: alice)
        func newInvoice(_ identifier: String) async throws -> (path: String, fields: [(String, String)]) {
            let (path, form) = try await bob.openForm("/invoices/new?client=\(id)")
            return (path, [("csrf", try #require(form.csrf)), ("identifier", identifier), ("client", String(id)),
                           ("currency", "EUR"), ("status", "draft"), ("issueDate", "2025-06-01"),
                           ("dueDate", "2025-07-01"), ("line-0-description", "Work"), ("line-0-quantity", "1"),
                           ("line-0-unitPrice", "10"), ("line-0-taxRate", "0"), ("action", "save")])
        }
        func rename(_ name: String) async throws -> (path: String, fields: [(String, String)]) {
            let (path, form) = try await alice.openForm("/clients/\(id)/edit")
            return (path, [("csrf", try #require(form.csrf)), ("name", name), ("action", "save")])
        }
        let firstRename = try await rename("Beta by Alice")
        let firstInvoice = try await newInvoice("INV-BOB-1")
        #expect(try await bob.post(firstInvoice.path, firstInvoice.fields).status == 303)
        #expect(try await alice.post(firstRename.path, firstRename.fields).status == 303)
        let secondInvoice = try await newInvoice("INV-BOB-2")
        let secondRename = try await rename("Beta by Alice, again")
        #expect(try await alice.post(secondRename.path, secondRename.fields).status == 303)
        #expect(try await bob.post(secondInvoice.path, secondInvoice.fields).status == 303)
        #expect(try await clientsOnDisk(url)["Beta by Alice, again"] != nil)
        let identifiers = try await invoiceIdentifiersOnDisk(url)
        #expect(identifiers.contains("INV-BOB-1") && identifiers.contains("INV-BOB-2"))
        for server in [first, second] { #expect(await server.stop().status == 0) }
    }

    @Test func aBusyFileAnswers503KeepsTheFormAndTheSameFormSavesOnceItIsFree() async throws {
        let url = try await seededDatabase()
        let server = try await ServeProcess(database: url, options: ["--busy-timeout", "0.5"])
        let visitor = server.visitor()
        let (path, csrf) = try await visitor.editClient("Beta Ltd", applying: [("name", "Beta Busy")])
        let holder = try await WriteLockHolder.hold(url)
        let busy = try await visitor.post(path, [("csrf", csrf), ("action", "save")])
        await holder.release()
        #expect(busy.status == 503)
        #expect(busy.header("Retry-After") == "5")
        #expect(busy.text.contains("Nothing was saved"))
        #expect(busy.text.contains("href=\"\(path)\""))
        let form = try await visitor.get(path)
        #expect(form.status == 200 && form.text.contains("value=\"Beta Busy\""))
        #expect(try await clientsOnDisk(url)["Beta Busy"] == nil)

        let saved = try await visitor.post(path, [("csrf", csrf), ("action", "save")])
        #expect(saved.status == 303)
        #expect(try await clientsOnDisk(url)["Beta Busy"] != nil)
        let stopped = await server.stop()
        #expect(stopped.status == 0)
    }

    /// `PRAGMA integrity_check` through a connection of its own.
    static func integrityCheck(_ url: URL) throws -> String {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { return "cannot open" }
        defer { sqlite3_close_v2(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, nil) == SQLITE_OK, let statement else {
            return "cannot prepare"
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return "no row" }
        return String(cString: text)
    }
}
