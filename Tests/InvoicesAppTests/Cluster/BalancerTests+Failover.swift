import Foundation
import Testing
import TestSupport
@testable import InvoicesApp

/// The balancer tests where a visitor moves between servers: by round-robin, because their
/// server was killed, or while the database restarts.
extension BalancerTests {
    @Test func aFormOpenedOnOneServerIsContinuedAndSavedOnAnother() async throws {
        let cluster = try await Self.cluster()
        let ports = cluster.serverPorts
        let visitor = ClusterVisitor(port: cluster.balancerPort)
        let name = Self.unique("Continued")
        // Opened on s1, read on s2, typed into on s3, saved on s1.
        let (path, csrf) = try await visitor.openForm("/clients/new", on: ports[0], readOn: ports[1])
        let applied = try await visitor.post(path, [("csrf", csrf), ("name", name), ("city", "Basel"), ("action", "apply")],
                                             port: ports[2])
        #expect(applied.status == 303, "\(applied.text.prefix(300))")
        let reread = try await visitor.get(path, port: ports[1])
        #expect(reread.status == 200 && reread.text.contains("value=\"Basel\""), "\(reread.text.prefix(300))")
        let saved = try await visitor.post(path, [("csrf", csrf), ("action", "save")], port: ports[0])
        #expect(saved.status == 303, "\(saved.text.prefix(300))")
        #expect(try await cluster.query("SELECT name, city FROM \"Client\" WHERE name = '\(name)'") == ["\(name)|Basel"])
    }

    @Test func aKillNineOfTheServerHoldingAFormLosesNoInputAndTheNextPostSavesElsewhere() async throws {
        let cluster = try await Self.cluster()
        let holder = cluster.serverPorts[0]
        let visitor = ClusterVisitor(port: cluster.balancerPort)
        let name = Self.unique("Killed")
        #expect(try await visitor.createClient(name).status == 303)
        let id = try await clientID(name, visitor: Visitor(port: holder))
        // Mid-edit on s1: the city typed and applied, not saved.
        let (path, csrf) = try await visitor.openForm("/clients/\(id)/edit", on: holder, readOn: holder)
        let applied = try await visitor.post(path, [("csrf", csrf), ("city", "Lugano"), ("action", "apply")], port: holder)
        #expect(applied.status == 303)
        #expect(await cluster.signal("s1", SIGKILL), "s1 did not die")
        #expect(await cluster.waitUntilRefused(port: holder), "s1's port still accepts connections")

        // The next POST goes through nginx, which passes it to a live server.
        let saved = try await visitor.post(path, [("csrf", csrf), ("name", name + " saved"), ("action", "save")])
        #expect(saved.status == 303, """
            \(saved.status): \(saved.text.prefix(300))
            \(cluster.logTail("nginx-error"))
            \(cluster.logTail("s2", lines: 5))
            \(cluster.logTail("s3", lines: 5))
            """)
        let stored = try await cluster.query("SELECT name, city FROM \"Client\" WHERE _pk = \(id)")
        #expect(stored == ["\(name) saved|Lugano"], "the city typed on the killed server is kept")
    }

    @Test func whilePostgreSQLRestartsTheServersAnswer503AndRecoverWithNothingAcknowledgedLost() async throws {
        let cluster = try await Self.cluster()
        let visitor = ClusterVisitor(port: cluster.balancerPort)
        let before = Self.unique("Before restart")
        #expect(try await visitor.createClient(before).status == 303)
        let (path, csrf) = try await visitor.openForm("/clients/new")

        #expect(await cluster.signal("postgresql", SIGINT, timeout: .seconds(30)), "PostgreSQL did not stop")
        var whileDown: [Int] = []
        for port in cluster.serverPorts {
            whileDown.append(try await Visitor(port: port).get("/clients.json?q=" + UUID().uuidString).status)
        }
        let during = Self.unique("During restart")
        whileDown.append(try await visitor.post(path, [("csrf", csrf), ("name", during), ("action", "save")]).status)
        #expect(whileDown.allSatisfy { $0 == 503 }, "statuses while PostgreSQL was down: \(whileDown)")

        let restarted = try await cluster.script("start")
        try #require(restarted.status == .exited(0), "\(restarted.output)")
        // Every server answers again; the form kept through the outage saves.
        for port in cluster.serverPorts {
            let deadline = ContinuousClock.now + .seconds(30)
            var status = 0
            while status != 200 && ContinuousClock.now < deadline {
                status = (try? await Visitor(port: port).get("/clients.json?q=" + UUID().uuidString).status) ?? 0
                if status != 200 { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(status == 200, "port \(port) answered \(status) after the restart")
        }
        let saved = try await visitor.post(path, [("csrf", csrf), ("name", during), ("action", "save")])
        #expect(saved.status == 303, "\(saved.status): \(saved.text.prefix(300))")
        #expect(try await Self.clientNames(cluster, like: before) == [before])
        #expect(try await Self.clientNames(cluster, like: during) == [during])
        // Changes reach the other servers again (each listens anew).
        let after = Self.unique("After restart")
        #expect(try await visitor.createClient(after).status == 303)
        let seen = try await Self.timesUntilListed(after, on: cluster.serverPorts, since: .now, limit: .seconds(5))
        #expect(seen.values.allSatisfy { $0 != nil }, "listed after: \(seen)")
    }
}
