import Foundation
import Testing
@testable import InvoicesApp

/// Many open forms and the inspector: reading the stack must never take the server's threads
/// from the work that keeps it answering (every check of a form's save awaits each queue in
/// turn; no thread waits on another queue), and its cost grows with the forms, not faster.
@Suite struct InspectorLoadTests {
    /// Opens `count` new-client forms, 20 per visitor (a session's limit), `width` at a time.
    private static func openForms(_ count: Int, on app: TestDashboard, width: Int = 16) async throws {
        let visitors = (0..<(count + 19) / 20).map { _ in app.visitor() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (n, visitor) in visitors.enumerated() {
                if n >= width { try await group.next() }
                let forms = min(20, count - n * 20)
                group.addTask { for _ in 0..<forms { _ = try await visitor.openForm("/clients/new") } }
            }
            try await group.waitForAll()
        }
    }

    @Test func fourHundredOpenFormsAndTheInspectorLeaveASaveUnderASecond() async throws {
        try await withDashboard { app in
            // given 400 open forms, each a scratchpad with an unsaved new client
            try await Self.openForms(400, on: app)
            let editor = app.visitor()
            let id = try await clientID("Beta Ltd", visitor: editor)
            let (path, form) = try await editor.openForm("/clients/\(id)/edit")
            let csrf = try #require(form.csrf)

            // when the inspector is read, three times at once (each checks every form's save)
            let readers = (0..<3).map { _ in app.visitor() }
            let reading = Task {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for reader in readers { group.addTask { try await reader.get("/contexts").status } }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
            }
            // then a save still goes through, within a second
            let started = ContinuousClock.now
            let saved = try await editor.post(path, [("csrf", csrf), ("name", "Beta Renamed"), ("action", "save")])
            let elapsed = ContinuousClock.now - started
            #expect(saved.status == 303)
            #expect(elapsed < .seconds(1), "the save took \(elapsed)")
            #expect(try await reading.value == [200, 200, 200])
        }
    }

    @Test func aThousandOpenFormsAreCountedTheMostRecentHundredListedAndThePageIsFast() async throws {
        try await withDashboard { app in
            try await Self.openForms(1_000, on: app)
            let reader = app.visitor()
            // the most recent hundred are listed, the rest counted
            let snapshot = try await reader.inspectorSnapshot()
            #expect(snapshot.contexts.filter { $0.role == .scratchpad }.count == 100)
            #expect(snapshot.unlistedScratchpads == 900)
            let markdown = try await reader.get("/contexts.md").text
            #expect(markdown.contains("900 more"))
            // and the page answers within a second (the best of three, on a shared machine)
            var timings: [Duration] = []
            for _ in 0..<3 {
                let started = ContinuousClock.now
                #expect(try await reader.get("/contexts").status == 200)
                timings.append(ContinuousClock.now - started)
            }
            #expect(timings.min() ?? .seconds(99) < .seconds(1), "\(timings)")
        }
    }
}
