import Foundation
import Testing
@testable import ObjectGraph

/// A label that must be one line, and a body that may span lines.
final class Memo: ManagedObject {
    @Attribute(.singleLine) var label: String?
    @Attribute(.multiLine) var body: String?
}

/// `.singleLine` and `.multiLine`: text that holds no control character it should not.
@Suite struct TextConstraintTests {
    private let model: ManagedObjectModel

    init() throws { model = try ManagedObjectModel(entities: [Memo.self]) }

    /// The messages of a save of one memo with these values; empty when it saved.
    private func failures(label: String?, body: String?) async throws -> [String] {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(.sqlite(at: TestStack.fileURL()))
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator)
        return await context.perform {
            let memo = Memo(context: context)
            memo.label = label
            memo.body = body
            do {
                try context.save()
                return []
            } catch SaveError.validationFailed(let failures) {
                #expect(failures.allSatisfy { $0.code == .stringControlCharacter })
                return failures.map(\.message)
            } catch {
                return ["unexpected: \(error)"]
            }
        }
    }

    @Test func oneLineRefusesEveryControlCharacterNamingIt() async throws {
        let cases: [(String, String)] = [
            ("IMP-NUL\u{0}TAIL", "U+0000"), ("a\tb", "U+0009"), ("a\nb", "U+000A"), ("a\rb", "U+000D"),
            ("\u{1B}[31mred", "U+001B"), ("a\u{7F}", "U+007F"), ("a\u{85}b", "U+0085"), ("a\u{2028}b", "U+2028"),
        ]
        for (label, named) in cases {
            #expect(try await failures(label: label, body: nil)
                    == ["Label must be one line, without control characters (found \(named))."])
        }
    }

    @Test func oneLineAcceptsAnyOtherText() async throws {
        #expect(try await failures(label: "Zürich – Genève, 12 € \\ \"quoted\" 日本", body: nil).isEmpty)
        #expect(try await failures(label: "", body: nil).isEmpty)
    }

    @Test func multiLineKeepsTabsAndLineBreaksButRefusesOtherControls() async throws {
        #expect(try await failures(label: nil, body: "first\r\nsecond\n\tindented\u{2028}").isEmpty)
        #expect(try await failures(label: nil, body: "before\u{0}after")
                == ["Body must not contain control characters other than tabs and line breaks (found U+0000)."])
        #expect(try await failures(label: nil, body: "\u{1B}]0;title\u{7}")
                == ["Body must not contain control characters other than tabs and line breaks (found U+001B)."])
    }

    @Test func batchInsertsAreCheckedToo() async throws {
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(.sqlite(at: TestStack.fileURL()))
        var row = PropertyValues<Memo>()
        row.set(\.label, to: "one\u{0}two")
        #expect(throws: BatchError.self) { try coordinator.execute(BatchInsertRequest(rows: [row])) }
    }
}
