import Foundation
import Synchronization
import Testing
@testable import InvoicesApp

/// ``PageCache`` on its own: what it serves at which generation, and how many renderings run.
@Suite struct PageCacheTests {
    /// Holds renderings back until the test opens it.
    final class Gate: Sendable {
        private let waiters = Mutex<(open: Bool, continuations: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let resumeNow = waiters.withLock { state -> Bool in
                    if state.open { return true }
                    state.continuations.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }

        func open() {
            let continuations = waiters.withLock { state in
                state.open = true
                defer { state.continuations = [] }
                return state.continuations
            }
            for continuation in continuations { continuation.resume() }
        }
    }

    let first = Generation(local: 1, store: 10)
    let otherProcessCommitted = Generation(local: 1, store: 11)
    let savedHere = Generation(local: 2, store: 11)

    func page(_ text: String, found: Bool = true) -> CachedPage {
        CachedPage(status: found ? .ok : .notFound, html: text)
    }

    @Test func aPageRendersOnceForManyRequestsOfOneGeneration() async throws {
        let cache = PageCache<String>()
        let gate = Gate()
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    let kept = try await cache.page(for: "/clients", generation: first) {
                        await gate.wait()
                        return page("v1")
                    }
                    return String(decoding: kept.body, as: UTF8.self)
                }
            }
            // The rendering is held until every other request waits for it (none can find the
            // page kept and pass for coalesced).
            let deadline = ContinuousClock.now + .seconds(10)
            while cache.statistics.joins < 19 && ContinuousClock.now < deadline { await Task.yield() }
            gate.open()
            for try await body in group { #expect(body == "v1") }
        }
        #expect(cache.statistics.renders == 1)
        #expect(cache.statistics.joins == 19)
        #expect(cache.statistics.hits == 0)
        #expect(cache.page(for: "/clients", generation: first).map { String(decoding: $0.body, as: UTF8.self) } == "v1")
        #expect(cache.page(for: "/clients", generation: savedHere) == nil)
    }

    @Test func aMergeOfAnotherProcessesCommitServesTheKeptPageWhileItRendersAgain() async throws {
        let cache = PageCache<String>(maximumStaleness: .seconds(600))
        _ = try await cache.page(for: "/invoices", generation: first) { page("v1") }
        // The history consumer refreshed objects in main: news from elsewhere, like `store`.
        let merged = Generation(local: 1, store: 10, merged: 1)
        let gate = Gate()
        let served = try await cache.page(for: "/invoices", generation: merged) {
            await gate.wait()
            return page("v2")
        }
        #expect(served.body == Array("v1".utf8))
        gate.open()
        // A change made here is never served stale.
        let gateHere = Gate()
        let afterSave = Task {
            try await cache.page(for: "/invoices", generation: Generation(local: 2, store: 10, merged: 1)) {
                await gateHere.wait()
                return page("v3")
            }
        }
        gateHere.open()
        #expect(try await afterSave.value.body == Array("v3".utf8))
    }

    @Test func anotherProcessesCommitServesTheKeptPageWhileItRendersAgain() async throws {
        // A bound no loaded machine reaches: past it, the request would wait for the gated
        // rendering that only this test opens.
        let cache = PageCache<String>(maximumStaleness: .seconds(600))
        _ = try await cache.page(for: "/clients", generation: first) { page("v1") }
        // The fast path does not start renderings: it sends the first request down the slow path.
        #expect(cache.page(for: "/clients", generation: otherProcessCommitted) == nil)
        let gate = Gate()
        let served = try await cache.page(for: "/clients", generation: otherProcessCommitted) {
            await gate.wait()
            return page("v2")
        }
        #expect(served.body == Array("v1".utf8))
        #expect(cache.page(for: "/clients", generation: otherProcessCommitted)?.body == Array("v1".utf8))
        gate.open()
        // The rendering keeps its page by itself, though no request waits for it.
        let deadline = ContinuousClock.now + .seconds(5)
        while cache.page(for: "/clients", generation: otherProcessCommitted)?.body != Array("v2".utf8),
              ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let fresh = try await cache.page(for: "/clients", generation: otherProcessCommitted) { page("unused") }
        #expect(fresh.body == Array("v2".utf8))
        #expect(cache.statistics.renders == 2)
    }

    @Test func aChangeInThisProcessIsNeverServedStale() async throws {
        let cache = PageCache<String>()
        _ = try await cache.page(for: "/clients", generation: first) { page("v1") }
        #expect(cache.page(for: "/clients", generation: savedHere) == nil)
        let served = try await cache.page(for: "/clients", generation: savedHere) { page("v2") }
        #expect(served.body == Array("v2".utf8))
    }

    @Test func aPageBehindForLongerThanTheBoundWaitsForItsRendering() async throws {
        let clock = ManualClock()
        let cache = PageCache<String>(maximumStaleness: .milliseconds(30), timekeeper: Timekeeper(clock))
        _ = try await cache.page(for: "/clients", generation: first) { page("v1") }
        clock.advance(by: .seconds(5))      // read long ago: what counts is when it fell behind
        #expect(cache.page(for: "/clients", generation: otherProcessCommitted) == nil)   // no rendering runs yet
        let gate = Gate()
        let stale = try await cache.page(for: "/clients", generation: otherProcessCommitted) {
            await gate.wait()
            return page("v2")
        }
        #expect(stale.body == Array("v1".utf8))
        clock.advance(by: .milliseconds(29))
        #expect(cache.page(for: "/clients", generation: otherProcessCommitted)?.body == Array("v1".utf8))
        clock.advance(by: .milliseconds(2))
        #expect(cache.page(for: "/clients", generation: otherProcessCommitted) == nil)
        let waiting = Task { try await cache.page(for: "/clients", generation: otherProcessCommitted) { page("v3") } }
        gate.open()
        #expect(try await waiting.value.body == Array("v2".utf8))
    }

    @Test func onlyPagesAnswered200AreKept() async throws {
        let cache = PageCache<String>()
        let missing = try await cache.page(for: "/clients/9", generation: first) { page("gone", found: false) }
        #expect(missing.status.code == 404)
        #expect(cache.page(for: "/clients/9", generation: first) == nil)
    }

    @Test func theLeastRecentlyUsedHalfGoesPastTheCapacity() async throws {
        let cache = PageCache<Int>(capacity: 4)
        for key in 0..<4 { _ = try await cache.page(for: key, generation: first) { page("\(key)") } }
        _ = cache.page(for: 0, generation: first)
        _ = try await cache.page(for: 4, generation: first) { page("4") }
        #expect(cache.page(for: 0, generation: first) != nil)
        #expect(cache.page(for: 4, generation: first) != nil)
        #expect(cache.page(for: 1, generation: first) == nil)
        #expect(cache.page(for: 2, generation: first) == nil)
    }
}
