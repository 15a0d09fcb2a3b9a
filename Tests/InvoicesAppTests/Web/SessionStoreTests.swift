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
        let store = SessionStore(limits: SessionLimits(formsPerSession: 20))
        let session = store.sessionOrNew(nil).session
        for i in 0..<21 { store.add(form(stack, "f\(i)"), to: session.id) }
        let forms = try #require(store.session(session.id)).forms
        #expect(forms.count == 20)
        #expect(forms.first?.id == "f1")
        #expect(forms.last?.id == "f20")
    }

    @Test func allSessionsTogetherHoldAtMostSoManyFormsAndTheIdlestLosesOneAndIsTold() async throws {
        let stack = try InvoicesStack.inMemory()
        let clock = ManualClock()
        let store = SessionStore(limits: SessionLimits(formsPerSession: 20, forms: 3), timekeeper: Timekeeper(clock))
        let idle = store.sessionOrNew(nil).session
        store.add(form(stack, "idle-1"), to: idle.id)
        store.add(form(stack, "idle-2"), to: idle.id)
        clock.advance(by: .seconds(5))
        let busy = store.sessionOrNew(nil).session
        store.add(form(stack, "busy-1"), to: busy.id)
        // when one more form opens than all sessions may hold
        store.add(form(stack, "busy-2"), to: busy.id)
        // then the idlest session loses its oldest form, and is told on its next page
        #expect(store.formCount == 3)
        #expect(store.session(idle.id)?.forms.map(\.id) == ["idle-2"])
        #expect(store.session(busy.id)?.forms.map(\.id) == ["busy-1", "busy-2"])
        #expect(store.takeFlash(idle.id) == SessionStore.formEvictedMessage)
        #expect(store.takeFlash(busy.id) == nil)
    }

    @Test func pastTheSessionLimitTheIdlestSessionEndsAndItsVisitorIsToldOnTheirNextPage() async throws {
        let stack = try InvoicesStack.inMemory()
        let clock = ManualClock()
        let store = SessionStore(limits: SessionLimits(sessions: 2), timekeeper: Timekeeper(clock))
        let first = store.sessionOrNew(nil).session
        store.add(form(stack, "first-form"), to: first.id)
        clock.advance(by: .seconds(1))
        let second = store.sessionOrNew(nil).session
        clock.advance(by: .seconds(1))
        _ = store.sessionOrNew(nil)                         // a third: the first ends
        #expect(store.count == 2)
        #expect(store.formCount == 0)
        #expect(store.session(first.id) == nil)
        #expect(store.session(second.id) != nil)
        #expect(store.wasEnded(first.id))
        // the first visitor comes back: a new session that tells them, once
        let returning = store.sessionOrNew(first.id)
        #expect(returning.isNew)
        #expect(store.takeFlash(returning.session.id) == SessionStore.sessionEndedMessage)
        #expect(!store.wasEnded(first.id))
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
