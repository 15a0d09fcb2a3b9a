import Foundation
import Testing
@testable import InvoicesApp

/// Reading the inspector over HTTP, as a tool would.
extension Visitor {
    /// `/contexts.json`, decoded.
    func inspectorSnapshot() async throws -> StackSnapshot {
        let response = try await get("/contexts.json")
        guard response.status == 200 else {
            throw URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "/contexts.json answered \(response.status)"])
        }
        return try jsonDecoder().decode(StackSnapshot.self, from: response.body)
    }

    /// Reads `/contexts.json` until `condition` holds or `timeout` passes; returns the last
    /// snapshot read and whether the condition held.
    func inspectorSnapshot(within timeout: Duration,
                           until condition: (StackSnapshot) -> Bool) async throws -> (StackSnapshot, Bool) {
        let deadline = ContinuousClock.now + timeout
        while true {
            let snapshot = try await inspectorSnapshot()
            if condition(snapshot) { return (snapshot, true) }
            if ContinuousClock.now >= deadline { return (snapshot, false) }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Opens an edit form for the client named `name` and applies `fields` (without saving):
    /// returns the form's path and CSRF token.
    func editClient(_ name: String, applying fields: [(String, String)]) async throws -> (path: String, csrf: String) {
        let id = try await clientID(name, visitor: self)
        let (path, form) = try await openForm("/clients/\(id)/edit")
        let csrf = try #require(form.csrf)
        let applied = try await post(path, [("csrf", csrf)] + fields)
        #expect(applied.status == 303, "applying fields answered \(applied.status)")
        return (path, csrf)
    }
}

extension StackSnapshot {
    /// The scratchpad of the form editing `object` (`client 12`).
    func scratchpad(editing object: String) -> ContextSnapshot? {
        contexts.first { $0.role == .scratchpad && $0.owner?.object == object }
    }

    func context(_ id: String) -> ContextSnapshot? { contexts.first { $0.id == id } }

    /// Every pending change of `object` (`Client/p12`), with the context holding it.
    func pendingChanges(of object: String) -> [(context: ContextSnapshot, change: PendingChangeSnapshot)] {
        contexts.flatMap { context in context.changes.filter { $0.object == object }.map { (context, $0) } }
    }
}

/// The primary key of a client, through the dashboard.
func clientKey(_ name: String, _ visitor: Visitor) async throws -> Int64 {
    try await clientID(name, visitor: visitor)
}
