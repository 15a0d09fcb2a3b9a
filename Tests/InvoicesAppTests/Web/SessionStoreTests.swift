import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

/// Sessions: idle expiry drops the forms; at most so many forms per session.
@Suite struct SessionStoreTests {
    private func form(_ stack: InvoicesStack, _ id: String) -> EditForm {
        let scratchpad = stack.newScratchpad()
        let objectID = scratchpad.performAndWait { Client(context: scratchpad).objectID }
        return EditForm(id: id, entity: "Client", noun: "client", scratchpad: scratchpad, objectID: objectID, isNew: true,
                        returnPath: "/clients", section: "clients")
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
        let clock = ManualClock()
        let store = SessionStore(idleTimeout: .seconds(60), timekeeper: Timekeeper(clock))
        let session = store.sessionOrNew(nil).session
        store.add(form(stack, "f"), to: session.id)
        clock.advance(by: .seconds(59))
        #expect(store.session(session.id)?.forms.count == 1)      // touched: idle again from now
        clock.advance(by: .seconds(59))
        #expect(store.session(session.id) != nil)
        clock.advance(by: .seconds(60))
        #expect(store.session(session.id) == nil)
        #expect(store.count == 0)
        let fresh = store.sessionOrNew(session.id)
        #expect(fresh.isNew)
        #expect(fresh.session.id != session.id)
    }

    @Test func sessionIDsAndTokensAreLongAndDistinct() {
        let tokens = (0..<100).map { _ in Tokens.random() }
        #expect(Set(tokens).count == 100)
        #expect(tokens.allSatisfy { $0.count == 64 })
    }
}
