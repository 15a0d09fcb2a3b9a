import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

/// A third editable entity, made up here: its field table is all it takes to get a working
/// form (open, 422 with the model's rules, save to disk, cancel), with nothing in `Web/` changed.
final class Note: ManagedObject, EditableEntity {
    @Attribute(.required, .maxLength(40)) var title: String
    @Attribute(.maxLength(500)) var body: String?
    @Attribute(.unique, .minLength(3), .pattern("N-[0-9]+")) var code: String?
    @Attribute(.earliest(CalendarDay(year: 2020, month: 1, day: 1)?.date ?? .distantPast))
    var due: Date = CalendarDay(year: 2025, month: 6, day: 1)?.date ?? Date()

    static var formPath: String { "notes" }
    static var formNoun: String { "note" }
    static var formFields: [FormFieldSpec<Note>] {
        [.text(\.title, label: "Title"),
         .optionalText(\.body, label: "Body", input: .textarea),
         .optionalText(\.code, label: "Code", duplicateMessage: "Another note has this code."),
         .day(\.due, label: "Due on")]
    }
    var formTitle: String { title }
}

@Suite struct ThirdEntityFormTests {
    private func withNotes(_ body: (Visitor, URL) async throws -> Void) async throws {
        let url = TestFiles.database()
        let model = try ManagedObjectModel(entities: [Client.self, Invoice.self, LineItem.self, Payment.self, Note.self])
        let stack = try InvoicesStack(storeURL: url, model: model)
        let server = try DashboardServer(stack: stack, host: "127.0.0.1", port: 0, resources: repositoryResources,
                                         today: nil, inspectorToken: nil, logger: .init(label: "test"),
                                         editable: Dashboard.editable + [Note.self], timekeeper: .continuous)
        do { try await body(Visitor(port: server.port), url) } catch { await server.stop(); throw error }
        await server.stop()
    }

    private func notesOnDisk(_ url: URL) async throws -> [String: String?] {
        let model = try ManagedObjectModel(entities: [Client.self, Invoice.self, LineItem.self, Payment.self, Note.self])
        let stack = try InvoicesStack(storeURL: url, model: model)
        let context = stack.newImportContext(name: "disk check")
        return try await context.perform { () throws -> [String: String?] in
            Dictionary(uniqueKeysWithValues: try context.fetch(FetchRequest<Note>()).map { ($0.title, $0.code) })
        }
    }

    @Test func aFieldTableIsAllANewEntityNeedsForAWorkingForm() async throws {
        try await withNotes { visitor, url in
            let (path, form) = try await visitor.openForm("/notes/new")
            #expect(form.status == 200)
            #expect(form.text.contains("New note"))
            #expect(form.text.contains("<label for=\"field-title\">Title"))
            #expect(form.text.contains("maxlength=\"40\""))          // from the model's .maxLength(40)
            // and the model's other rules, said by the inputs too
            #expect(form.text.contains("minlength=\"3\" pattern=\"N-[0-9]+\""))
            #expect(form.text.contains("min=\"2020-01-01\""))
            #expect(form.text.contains("type=\"date\""))
            let csrf = try #require(form.csrf)

            let refused = try await visitor.post(path, [("csrf", csrf), ("title", String(repeating: "x", count: 41)),
                                                        ("due", "not a day"), ("action", "save")])
            #expect(refused.status == 422)
            #expect(refused.text.contains("Due on &quot;not a day&quot; is not a date"))
            let tooLong = try await visitor.post(path, [("csrf", csrf), ("title", String(repeating: "x", count: 41)),
                                                        ("due", "2025-07-01"), ("action", "save")])
            #expect(tooLong.status == 422)
            #expect(tooLong.text.contains("aria-describedby=\"error-title\""))

            let saved = try await visitor.post(path, [("csrf", csrf), ("title", "Call Acme"), ("code", "N-1"),
                                                      ("action", "save")])
            #expect(saved.status == 303)
            #expect(saved.header("Location")?.hasPrefix("/notes/") == true)
            #expect(try await notesOnDisk(url)["Call Acme"] == .some("N-1"))

            // A taken code is the table's own message; cancel drops the form.
            let (second, page) = try await visitor.openForm("/notes/new")
            let duplicate = try await visitor.post(second, [("csrf", try #require(page.csrf)), ("title", "Again"),
                                                            ("code", "N-1"), ("action", "save")])
            #expect(duplicate.status == 422 && duplicate.text.contains("Another note has this code."))
            let cancelled = try await visitor.post(second, [("csrf", try #require(page.csrf)), ("action", "cancel")])
            #expect(cancelled.status == 303 && cancelled.header("Location") == "/notes")
            #expect(try await visitor.get(second).status == 410)
            #expect(try await notesOnDisk(url).count == 1)
        }
    }
}
