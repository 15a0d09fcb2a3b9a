import Foundation
import Testing
import TestSupport
@testable import InvoicesApp

/// HTTP end to end through a real balancer: PostgreSQL, three `invoices serve` on it and
/// nginx round-robin in front, without stickiness (``TestCluster``, what `make cluster` runs).
/// One cluster for the whole suite; the tests run one after another, since some stop parts
/// of it. Each test names its own clients, so none depends on another's data.
@Suite(.serialized, .enabled(if: TestCluster.missingPrograms == nil,
                             "PostgreSQL, nginx or curl is not installed (make test installs them): the balancer tests were skipped"))
struct BalancerTests {
    /// The suite's cluster with every process running (a test before may have stopped one).
    static func cluster() async throws -> TestCluster {
        let cluster = try await TestCluster.shared()
        let started = try await cluster.script("start")
        try #require(started.status == .exited(0), "scripts/cluster.sh start: \(started.output)")
        return cluster
    }

    /// A name no other test or run uses.
    static func unique(_ prefix: String) -> String { "\(prefix) \(UUID().uuidString.prefix(8))" }

    /// Whether the server on `port`, asked directly, lists a client named `name`.
    static func lists(_ name: String, port: Int) async throws -> Bool {
        let response = try await Visitor(port: port).get("/clients.json?q=" + Visitor.encode(name))
        guard response.status == 200 else { return false }
        let page = try jsonDecoder().decode(Page<ClientSummary>.self, from: response.body)
        return page.items.contains { $0.name == name }
    }

    /// How long after `start` each server listed `name` (nil: not within `limit`).
    static func timesUntilListed(_ name: String, on ports: [Int], since start: ContinuousClock.Instant,
                                 limit: Duration) async throws -> [Int: Duration?] {
        var seen: [Int: Duration?] = [:]
        for port in ports {
            seen[port] = .some(nil)
            while ContinuousClock.now - start < limit {
                if try await lists(name, port: port) { seen[port] = ContinuousClock.now - start; break }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        return seen
    }

    /// The names of the clients in the database, read with psql.
    static func clientNames(_ cluster: TestCluster, like pattern: String) async throws -> [String] {
        try await cluster.query("SELECT name FROM \"Client\" WHERE name LIKE '\(pattern)' ORDER BY name")
    }

    @Test func anEditSavedThroughTheBalancerShowsOnEveryServerWithinASecond() async throws {
        let cluster = try await Self.cluster()
        let visitor = ClusterVisitor(port: cluster.balancerPort)
        let name = Self.unique("Balanced")
        let created = try await visitor.createClient(name)
        #expect(created.status == 303, "\(created.text.prefix(300))")
        let start = ContinuousClock.now
        let seen = try await Self.timesUntilListed(name, on: cluster.serverPorts, since: start, limit: .seconds(1))
        #expect(seen.values.allSatisfy { $0 != nil }, "listed after: \(seen)")

        // An edit of that client, saved through nginx: every server shows the new name.
        let id = try await clientID(name, visitor: Visitor(port: cluster.serverPorts[0]))
        let renamed = name + " renamed"
        let (path, csrf) = try await visitor.openForm("/clients/\(id)/edit")
        let saved = try await visitor.post(path, [("csrf", csrf), ("name", renamed), ("action", "save")])
        #expect(saved.status == 303)
        let editSeen = try await Self.timesUntilListed(renamed, on: cluster.serverPorts, since: .now, limit: .seconds(1))
        #expect(editSeen.values.allSatisfy { $0 != nil }, "listed after: \(editSeen)")
        #expect(try await Self.clientNames(cluster, like: name + "%") == [renamed])
    }

    @Test func aStormOfSavesOfOneClientFromManySessionsAnswersOnly303Or409AndLosesNothingAcknowledged() async throws {
        let cluster = try await Self.cluster()
        let name = Self.unique("Storm")
        #expect(try await ClusterVisitor(port: cluster.balancerPort).createClient(name).status == 303)
        let id = try await clientID(name, visitor: Visitor(port: cluster.serverPorts[0]))
        let results = try await withThrowingTaskGroup(of: [(status: Int, name: String, created: Bool)].self) { group in
            for session in 0..<6 {
                group.addTask {
                    try await Self.storm(port: cluster.balancerPort, client: id, label: "\(name)-\(session)", rounds: 5,
                                         creates: session.isMultiple(of: 3))
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let statuses = results.map(\.status)
        #expect(Set(statuses).isSubset(of: [303, 409]), "statuses: \(statuses)")
        let renames = results.filter { !$0.created }
        let acknowledged = Set(renames.filter { $0.status == 303 }.map(\.name))
        #expect(!acknowledged.isEmpty, "no rename was acknowledged: \(statuses)")
        let stored = try await cluster.query("SELECT name FROM \"Client\" WHERE _pk = \(id)")
        #expect(stored.count == 1 && acknowledged.contains(stored[0]), "in the database: \(stored)")
        // Every acknowledged new client is in the database.
        let created = Set(results.filter { $0.created && $0.status == 303 }.map(\.name))
        let inDatabase = Set(try await Self.clientNames(cluster, like: name + "-new%"))
        #expect(!created.isEmpty && created.isSubset(of: inDatabase), "missing: \(created.subtracting(inDatabase))")
    }

    /// One session's saves through nginx: each round renames the client (a 409 cancels the
    /// form), and with `creates` also creates a client.
    private static func storm(port: Int, client: Int64, label: String, rounds: Int,
                              creates: Bool) async throws -> [(status: Int, name: String, created: Bool)] {
        let visitor = ClusterVisitor(port: port)
        var results: [(Int, String, Bool)] = []
        for round in 0..<rounds {
            let (path, csrf) = try await visitor.openForm("/clients/\(client)/edit")
            let name = "\(label)-\(round)"
            let saved = try await visitor.post(path, [("csrf", csrf), ("name", name), ("action", "save")])
            results.append((saved.status, name, false))
            if saved.status == 409 { _ = try await visitor.post(path, [("csrf", csrf), ("action", "cancel")]) }
            if creates {
                let new = label.replacingOccurrences(of: "-", with: "-new-") + "-\(round)"
                results.append((try await visitor.createClient(new).status, new, true))
            }
        }
        return results
    }

    @Test func anImportFromAnotherProcessShowsOnEveryServerWithinASecond() async throws {
        let cluster = try await Self.cluster()
        let name = Self.unique("Imported")
        let folder = TestFiles.folder()
        let file = folder.appendingPathComponent("import.csv")
        try """
            client_name,client_email,identifier,amount,currency,status,issue_date,due_date
            \(name),,IMP-\(UUID().uuidString.prefix(8)),10.00,EUR,draft,2025-03-01,2025-03-31
            """.write(to: file, atomically: true, encoding: .utf8)
        let invoices = try #require(ChildProcess.executable("invoices"))
        let result = try await ChildProcess.run(invoices, ["import", file.path, "--store", cluster.storeURL, "--quiet"])
        let start = ContinuousClock.now
        #expect(result.status == 0, "\(result.standardOutput) \(result.standardError)")
        let seen = try await Self.timesUntilListed(name, on: cluster.serverPorts, since: start, limit: .seconds(1))
        #expect(seen.values.allSatisfy { $0 != nil }, "listed after: \(seen)")
    }
}
