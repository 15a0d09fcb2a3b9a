import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

/// `--persist deferred=SECONDS`, timed by a clock the test moves: a save waits in the writer
/// until the interval has passed, then one flush writes it.
@Suite struct DeferredFlushTests {
    @Test func aDeferredSaveReachesTheFileWhenTheIntervalHasPassedAndNotBefore() async throws {
        let database = TestFiles.database()
        let clock = ManualClock()
        let stack = try InvoicesStack(storeURL: database, persist: .deferred(seconds: 5), model: nil,
                                      timekeeper: Timekeeper(clock))
        let scratchpad = stack.newScratchpad()
        await scratchpad.perform { _ = scratchpad.makeClient("Deferred Client") }
        guard case .saved = await stack.save(scratchpad) else { Issue.record("not saved"); return }
        let elsewhere = try InvoicesStack(storeURL: database)

        // the flush is scheduled: nothing is on disk before its time
        await clock.waitForSleepers()
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(4.9))
        await Self.settle(stack.writer)
        #expect(try await elsewhere.clientPage(ClientQuery()).totalCount == 0)
        #expect(await stack.writer.perform { stack.writer.hasChanges })

        // and once the interval has passed, it is
        clock.advance(by: .seconds(0.2))
        #expect(await Self.flushed(stack.writer))
        #expect(try await elsewhere.clientPage(ClientQuery()).items.map(\.name) == ["Deferred Client"])
        // a second save schedules a new flush
        let next = stack.newScratchpad()
        await next.perform { _ = next.makeClient("Second Client") }
        guard case .saved = await stack.save(next) else { Issue.record("not saved"); return }
        await clock.waitForSleepers()
        #expect(clock.sleeperCount == 1)
        #expect(await stack.stopPersisting().isEmpty)
        #expect(try await elsewhere.clientPage(ClientQuery()).totalCount == 2)
    }

    /// Lets blocks already scheduled on `writer` run.
    private static func settle(_ writer: ManagedObjectContext) async {
        for _ in 0..<10 { await writer.perform(schedule: .enqueued) {} }
    }

    /// Whether the writer came to hold nothing (a flush ran), within a bounded wait.
    private static func flushed(_ writer: ManagedObjectContext) async -> Bool {
        for _ in 0..<10_000 {
            if await !writer.perform(schedule: .enqueued, { writer.hasChanges }) { return true }
            await Task.yield()
        }
        return false
    }
}
