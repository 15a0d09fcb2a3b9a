import Foundation
import Testing
@testable import ObjectGraph

/// Who persistent history names for a save through nested contexts: the context whose save it
/// is (a form, an import), not the root that wrote it.
@Suite struct SaveThroughHistoryTests {
    @Test func aSaveThroughIsRecordedUnderTheSavingContextsAuthorAndName() async throws {
        let url = TestStack.fileURL()
        defer { StoreFileState.cleanUp(url) }
        let coordinator = try HistoryValuesStack.coordinator(at: url)
        let root = HistoryValuesStack.context(coordinator, author: "server", name: "writer")
        let middle = root.newChildContext(name: "main")
        let form = middle.newChildContext(name: "form: new bill")
        form.transactionAuthor = "visitor 3fa9c1"
        let anonymous = middle.newChildContext(name: "unnamed author")
        let start = try coordinator.currentHistoryToken()

        _ = try await HistoryValuesTests.insertBill(root)      // the root's own save
        await form.perform { Customer(context: form).name = "From the form" }
        try await form.saveToStore()
        await anonymous.perform { Customer(context: anonymous).name = "No author" }
        try await anonymous.saveToStore()

        let recorded = try coordinator.history(after: start).map { "\($0.author ?? "-") / \($0.contextName ?? "-")" }
        #expect(recorded == ["server / writer", "visitor 3fa9c1 / form: new bill", "server / unnamed author"])
    }
}
