import Foundation
import Testing
@testable import InvoicesApp
import ObjectGraph

/// What `invoices import` commits in its own process (its own coordinator on the same SQLite
/// file) shows in the running server's pages at once: pages fetch from the main context on
/// every request, and a fetch reads the file's committed state.
@Suite struct OtherProcessTests {
    @Test func anImportInAnotherProcessAppearsInThePagesWithinASecond() async throws {
        guard let invoices = ChildProcess.executable("invoices") else {
            Issue.record("the invoices executable was not built beside the tests")
            return
        }
        try await withDashboard { dashboard in
            let visitor = dashboard.visitor()
            let before = try await visitor.get("/invoices.json?q=REMOTE")
            #expect(before.status == 200)
            #expect(!before.text.contains("REMOTE-0001"))

            let csv = TestFiles.folder().appendingPathComponent("remote.csv")
            try Data("""
                client_name,client_email,identifier,amount,currency,status,issue_date,due_date,notes
                Remote Co,remote@example.com,REMOTE-0001,12.50,EUR,sent,2026-11-01,2026-12-01,from another process

                """.utf8).write(to: csv)
            let stack = dashboard.server.stack
            let mainChanges = stack.main.changes
            let result = try await ChildProcess.run(invoices, ["import", csv.path, "--db", dashboard.databaseURL.path])
            #expect(result.status == 0, "\(result.standardError)")

            let deadline = ContinuousClock.now + .seconds(1)
            var seen = false
            while !seen && ContinuousClock.now < deadline {
                let page = try await visitor.get("/invoices.json?q=REMOTE")
                seen = page.text.contains("REMOTE-0001")
                if !seen { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(seen)
            let clients = try await visitor.get("/clients?q=Remote")
            #expect(clients.text.contains("Remote Co"))

            // The main context itself heard of it: a remote change from persistent history,
            // with the imported invoice among its inserts.
            let remote = await firstRemoteChange(mainChanges, within: .seconds(2))
            #expect(remote?.context?.hasPrefix("invoices import (pid ") == true, "\(remote?.context ?? "none")")
            #expect(remote.map { $0.inserted.contains { $0.entityName == "Invoice" } } == true)
        }
    }
}

/// The first change set with origin `.remote` on `stream`, or nil after `limit`.
private func firstRemoteChange(_ stream: AsyncStream<ChangeSet>, within limit: Duration) async -> ChangeSet? {
    await withTaskGroup(of: ChangeSet?.self) { group in
        group.addTask {
            for await change in stream where change.origin == .remote { return change }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
