import Foundation
import Testing
import TestSupport
@testable import InvoicesApp
import ObjectGraph

/// Several real `invoices serve --store postgresql://…` processes on one database, spoken to
/// over HTTP: what one saves, another shows; what `invoices import --store` commits, a running
/// server shows; three servers starting together on an empty database seed it once.
@Suite(.enabled(if: PostgreSQLServer.isInstalled, "PostgreSQL is not available (see PostgreSQLDashboardAvailabilityTests)"))
struct PostgreSQLServersTests {
    /// A new database holding Acme Corp (with three invoices) and Beta Ltd.
    static func seededDatabase() async throws -> String {
        let url = try await PostgreSQLServer.sharedServer().newDatabase()
        try await insertTwoClients(into: try await openStack(.postgreSQL(url: url)))
        return url
    }

    /// Runs `body`, then stops every server (SIGTERM, by PID), whatever `body` did.
    static func stopping<T>(_ servers: [ServeProcess], _ body: () async throws -> T) async throws -> T {
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        for server in servers {
            let stopped = await server.stop()
            #expect(stopped.status == 0, "\(stopped.printed)")
        }
        return try result.get()
    }

    /// Polls `path` on `visitor` until its body contains `text`; how long it took, or nil
    /// past `limit`.
    static func timeUntil(_ visitor: Visitor, _ path: String, shows text: String,
                          within limit: Duration = .seconds(1)) async throws -> Duration? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < limit {
            if try await visitor.get(path).text.contains(text) { return ContinuousClock.now - start }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    @Test func anEditSavedThroughOneServerShowsOnTheOtherWithinASecond() async throws {
        let url = try await Self.seededDatabase()
        let first = try await ServeProcess(store: url, name: "s1"), second = try await ServeProcess(store: url, name: "s2")
        try await Self.stopping([first, second]) {
            let reader = second.visitor()
            let pk = try await clientID("Beta Ltd", visitor: reader)
            // The second server has the client's page kept before the edit.
            #expect(try await reader.get("/clients/\(pk)").text.contains("Beta Ltd"))

            let editor = first.visitor()
            let (path, form) = try await editor.openForm("/clients/\(pk)/edit")
            let saved = try await editor.post(path, [("csrf", try #require(form.csrf)), ("name", "Beta Renamed"), ("action", "save")])
            #expect(saved.status == 303)
            let seen = try await Self.timeUntil(reader, "/clients/\(pk)", shows: "Beta Renamed")
            #expect(seen != nil, "the second server still showed the old name a second after the save")
            #expect(try await Self.timeUntil(reader, "/clients?q=renamed", shows: "Beta Renamed") != nil)

            // The second server's inspector says which server it is, and that the change came
            // from the first.
            let inspector = try await reader.get("/contexts.md").text
            #expect(inspector.contains("Server: s2"))
            #expect(inspector.contains("PostgreSQL store"))
            #expect(inspector.contains("committed by another server or process") && inspector.contains(" on s1"),
                    "\(inspector)")
        }
    }

    @Test func anImportFromAnotherProcessShowsInARunningServerWithinASecond() async throws {
        let invoices = try #require(ChildProcess.executable("invoices"), "the invoices executable was not built")
        let url = try await Self.seededDatabase()
        let server = try await ServeProcess(store: url, name: "s1")
        try await Self.stopping([server]) {
            let visitor = server.visitor()
            #expect(try await !visitor.get("/invoices.json?q=REMOTE").text.contains("REMOTE-0001"))

            let csv = TestFiles.folder().appendingPathComponent("remote.csv")
            try Data("""
                client_name,client_email,identifier,amount,currency,status,issue_date,due_date
                Remote Co,remote@example.com,REMOTE-0001,12.50,EUR,sent,2026-11-01,2026-12-01

                """.utf8).write(to: csv)
            let result = try await ChildProcess.run(invoices, ["import", csv.path, "--store", url, "--quiet"])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(try await Self.timeUntil(visitor, "/invoices.json?q=REMOTE", shows: "REMOTE-0001") != nil)
            #expect(try await Self.timeUntil(visitor, "/clients?q=remote", shows: "Remote Co") != nil)
        }
    }

    @Test func threeServersStartingTogetherOnAnEmptyDatabaseSeedItOnce() async throws {
        let url = try await PostgreSQLServer.sharedServer().newDatabase()
        let servers = try await withThrowingTaskGroup(of: ServeProcess.self) { group in
            for name in ["s1", "s2", "s3"] {
                group.addTask { try await ServeProcess(store: url, name: name, demoData: true, timeout: .seconds(120)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        try await Self.stopping(servers) {
            let seeded = servers.filter { $0.printed.contains("(filled with demo data)") }
            #expect(seeded.count == 1, "servers that seeded: \(seeded.count)")
            for server in servers {
                let page = try jsonDecoder().decode(Page<ClientSummary>.self,
                                                    from: try await server.visitor().get("/clients.json").body)
                #expect(page.totalCount == DemoData.standard().clients.count)
            }
        }
    }

    @Test func bothFlagsOrABadStoreURLAreUsageErrorsAndAnUnreachableServerAClearOne() async throws {
        let invoices = try #require(ChildProcess.executable("invoices"), "the invoices executable was not built")
        let both = try await ChildProcess.run(invoices, ["serve", "--db", "x.sqlite", "--store", "postgresql://a@127.0.0.1:5432/b"])
        #expect(both.status == 64 && both.standardError.contains("not both"), "\(both.standardError)")
        let scheme = try await ChildProcess.run(invoices, ["import", "x.csv", "--store", "mysql://a@b/c"])
        #expect(scheme.status == 64 && scheme.standardError.contains("postgresql://"), "\(scheme.standardError)")
        let noDatabase = try await ChildProcess.run(invoices, ["serve", "--store", "postgresql://a@127.0.0.1:5432"])
        #expect(noDatabase.status == 64 && noDatabase.standardError.contains("no database"), "\(noDatabase.standardError)")
        // Port 1 on loopback refuses at once: the server cannot be reached, said in words.
        let down = try await ChildProcess.run(invoices, ["serve", "--store", "postgresql://postgres@127.0.0.1:1/x", "--port", "0"])
        #expect(down.status == 1 && down.standardError.contains("cannot be reached"), "\(down.standardError)")
    }
}
