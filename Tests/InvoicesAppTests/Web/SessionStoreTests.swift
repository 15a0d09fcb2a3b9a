import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

/// Sessions: idle expiry drops the forms; at most so many forms per session.
@Suite struct SessionStoreTests {
    private func form(_ stack: InvoicesStack, _ id: String) -> EditForm {
        let scratchpad = stack.newScratchpad()
        let objectID = scratchpad.performAndWait { Client(context: scratchpad).objectID }
        return EditForm(id: id, kind: .client, scratchpad: scratchpad, objectID: objectID, isNew: true, returnPath: "/clients")
    }

    @Test func openingMoreThanTheLimitDropsTheOldestForm() throws {
        let stack = try InvoicesStack.inMemory()
        let store = SessionStore(maximumForms: 20)
        let session = store.sessionOrNew(nil).session
        for i in 0..<21 { store.add(form(stack, "f\(i)"), to: session.id) }
        let forms = try #require(store.session(session.id)).forms
        #expect(forms.count == 20)
        #expect(forms.first?.id == "f1")
        #expect(forms.last?.id == "f20")
    }

    @Test func anIdleSessionExpiresWithItsForms() async throws {
        let stack = try InvoicesStack.inMemory()
        let store = SessionStore(idleTimeout: .milliseconds(50))
        let session = store.sessionOrNew(nil).session
        store.add(form(stack, "f"), to: session.id)
        #expect(store.session(session.id)?.forms.count == 1)
        try await Task.sleep(for: .milliseconds(120))
        #expect(store.session(session.id) == nil)
        #expect(store.count == 0)
        let fresh = store.sessionOrNew(session.id)
        #expect(fresh.isNew)
        #expect(fresh.session.id != session.id)
    }

    @Test func sessionIDsAndTokensAreLongAndDistinct() {
        let tokens = (0..<100).map { _ in SessionStore.randomToken() }
        #expect(Set(tokens).count == 100)
        #expect(tokens.allSatisfy { $0.count == 64 })
    }
}
