import Foundation
import Testing
import TestSupport
@testable import InvoicesApp
import ObjectGraph

/// PostgreSQL restarted under two running `invoices serve --store` processes: while it is down
/// pages and saves answer 503 with the reason (never 500) and forms keep their input; once it
/// is back, the servers answer again by themselves, and every acknowledged save is in the
/// database. On a PostgreSQL server of the test's own, so the shared one never goes down
/// under other tests.
@Suite(.enabled(if: PostgreSQLServer.isInstalled, "PostgreSQL is not available (see PostgreSQLDashboardAvailabilityTests)"))
struct PostgreSQLRestartTests {
    /// The names of the clients in the database, read by a stack of its own.
    static func clientNames(_ url: String) async throws -> Set<String> {
        let context = try await openStack(.postgreSQL(url: url)).newImportContext(name: "database check")
        return try await context.perform { Set(try context.fetch(FetchRequest<Client>()).map(\.name)) }
    }

    /// Saves the open form at `path` with a new name; the response.
    static func rename(_ visitor: Visitor, form: (path: String, page: WebResponse), to name: String) async throws -> WebResponse {
        try await visitor.post(form.path, [("csrf", try #require(form.page.csrf)), ("name", name), ("action", "save")])
    }

    @Test func whileTheDatabaseIsDownPagesAndSavesAnswer503AndAfterItComesBackNothingAcknowledgedIsLost() async throws {
        let database = try await PostgreSQLServer.started()
        do {
            try await whileTheDatabaseRestarts(database)
        } catch {
            await database.stopAndWait()
            throw error
        }
        await database.stopAndWait()
    }

    private func whileTheDatabaseRestarts(_ database: PostgreSQLServer) async throws {
        let url = try await database.newDatabase()
        try await insertTwoClients(into: try await openStack(.postgreSQL(url: url)))
        let first = try await ServeProcess(store: url, name: "s1"), second = try await ServeProcess(store: url, name: "s2")
        try await PostgreSQLServersTests.stopping([first, second]) {
            let one = first.visitor(), two = second.visitor()
            let beta = try await clientID("Beta Ltd", visitor: one), acme = try await clientID("Acme Corp", visitor: two)
            #expect(try await Self.rename(one, form: try await one.openForm("/clients/\(beta)/edit"), to: "Beta One").status == 303)
            let pending = try await two.openForm("/clients/\(acme)/edit")

            await database.shutDownAndWait()
            for (visitor, path) in [(one, "/clients?q=nobody-asked-before"), (two, "/invoices?status=paid&q=inv"),
                                    (one, "/clients/\(acme)/history"), (two, "/invoices.csv")] {
                let page = try await visitor.get(path)
                #expect(page.status == 503, "\(path) answered \(page.status) while the database was down")
                #expect(page.header("Retry-After") != nil)
                #expect(page.text.contains("cannot be reached"), "\(page.text.prefix(600))")
            }
            let refused = try await Self.rename(two, form: pending, to: "Acme Two")
            #expect(refused.status == 503)
            #expect(refused.text.contains("Nothing was saved"), "\(refused.text.prefix(600))")

            try await database.startAgainAndWait()
            // The servers make their connections again by themselves.
            for visitor in [one, two] {
                #expect(try await PostgreSQLServersTests.timeUntil(visitor, "/clients?q=one", shows: "Beta One",
                                                                   within: .seconds(10)) != nil)
            }
            // The form is still open after the outage (its stored state never went), and the
            // visitor sends their input again, as the 503 page asked.
            #expect(try await two.get(pending.path).status == 200)
            let saved = try await two.post(pending.path, [("csrf", try #require(pending.page.csrf)), ("name", "Acme Two"),
                                                          ("action", "save")])
            #expect(saved.status == 303, "\(saved.text.prefix(600))")
            #expect(try await PostgreSQLServersTests.timeUntil(one, "/clients/\(acme)", shows: "Acme Two") != nil)
            #expect(try await Self.clientNames(url) == ["Beta One", "Acme Two"])
        }
    }
}
