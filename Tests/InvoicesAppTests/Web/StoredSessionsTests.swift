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
        let form = StoredForm(key: "f", sessionKey: StoredSessionKey.of(session.id), revision: "1", scratchpadName: "form", forms: [], changes: Data())
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

    /// The cookie is the visitor's credential: whoever reads the database file (a backup, a
    /// replica) must not find it there, in session or form records.
    @Test func theDatabaseHoldsNoSessionIDOnlyItsDigest() throws {
        let url = TestFiles.database()
        let a = try Self.server(url, clock: ManualClock())
        let session = a.sessionOrNew(nil).session
        let stored = try #require(a.stored)
        let form = StoredForm(key: "f", sessionKey: StoredSessionKey.of(session.id), revision: "1",
                              scratchpadName: "form", forms: [], changes: Data())
        try stored.save(form, session: session.id, expiresAt: a.expiry())
        #expect(try stored.session(session.id, now: a.wallNow()) != nil)

        let records = try InvoicesStack(storeURL: url).coordinator.records(named: "sessions")
        #expect(try records.value(for: session.id) == nil)
        #expect(try records.value(for: StoredSessionKey.of(session.id)) != nil)
        let needle = Array(session.id.utf8)
        for suffix in ["", "-wal"] {
            let bytes = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: url.path + suffix))) ?? Data())
            let found = bytes.count >= needle.count
                && (0...(bytes.count - needle.count)).contains { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
            #expect(!found, "the session ID is in \(url.lastPathComponent + suffix)")
        }
        // SHA-256 (FIPS 180-2's example), not some weaker digest.
        #expect(StoredSessionKey.of("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
