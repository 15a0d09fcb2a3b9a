import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

/// Two servers' session stores on one database file, on one clock a test moves: a session
/// is the database's, so either server honours it, says its flash, and lets it expire at the
/// same moment, after which its records are purged.
@Suite struct StoredSessionsTests {
    /// A session store over its own coordinator on `url` (one server's).
    private static func server(_ url: URL, clock: ManualClock) throws -> SessionStore {
        let stack = try InvoicesStack(storeURL: url)
        return SessionStore(idleTimeout: .seconds(60), timekeeper: Timekeeper(clock),
                            stored: try StoredSessions(coordinator: stack.coordinator))
    }

    @Test func aSessionOfOneServerIsHonouredByAnotherWithItsTokenAndFlash() throws {
        let url = TestFiles.database()
        let clock = ManualClock()
        let a = try Self.server(url, clock: clock), b = try Self.server(url, clock: clock)
        let made = a.sessionOrNew(nil).session
        let taken = try #require(b.session(made.id))
        #expect(taken.csrfToken == made.csrfToken && taken.label == made.label)
        #expect(b.session(Tokens.random()) == nil)   // a cookie nobody issued
        b.setFlash("Client saved.", for: made.id)
        #expect(a.session(made.id)?.flash == "Client saved.")
        #expect(a.takeFlash(made.id) == "Client saved.")
        #expect(b.session(made.id)?.flash == nil)   // shown once, on whichever server
    }

    @Test func aSessionExpiresOnEveryServerAtOnceAndItsRecordsArePurged() throws {
        let url = TestFiles.database()
        let clock = ManualClock()
        let a = try Self.server(url, clock: clock), b = try Self.server(url, clock: clock)
        let session = a.sessionOrNew(nil).session
        let stored = try #require(a.stored)
        let form = StoredForm(key: "f", sessionID: session.id, revision: "1", scratchpadName: "form", forms: [], changes: Data())
        try stored.save(form, session: session.id, expiresAt: a.expiry())
        // Visits on B keep it alive for A too: the stored expiry moves on.
        for _ in 0..<3 {
            clock.advance(by: .seconds(50))
            #expect(b.session(session.id) != nil)
        }
        clock.advance(by: .seconds(50))
        #expect(a.session(session.id) != nil)   // 200 s after A last saw it
        #expect(try stored.form("f", now: a.wallNow())?.revision == "1")   // its forms live as long
        clock.advance(by: .seconds(61))
        #expect(a.session(session.id) == nil)
        #expect(b.session(session.id) == nil)
        let coordinator = try InvoicesStack(storeURL: url).coordinator
        #expect(try coordinator.records(named: "sessions").count(asOf: .distantPast) == 0)
        #expect(try coordinator.records(named: "forms").count(asOf: .distantPast) == 0)
    }
}
