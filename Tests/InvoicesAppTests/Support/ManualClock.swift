import Synchronization

/// A clock that moves only when a test says so: sleepers wake when ``advance(by:)`` passes
/// their deadline. What session expiry, deferred flushes and the inspector's delays are tested
/// with, instead of sleeping.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        let offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let id: Int
        let deadline: Instant
        let wake: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID = 0
    }
    private let state = Mutex(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    /// How many sleepers wait.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Wakes when the clock is advanced past `deadline`, or at once (throwing) when the task is
    /// cancelled, as `ContinuousClock.sleep` does.
    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let due = state.withLock { state -> Bool in
                    if deadline <= state.now || Task.isCancelled { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, wake: continuation))
                    return false
                }
                if due { continuation.resume() }
            }
        } onCancel: {
            let woken = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index).wake
            }
            woken?.resume()
        }
        try Task.checkCancellation()
    }

    /// Moves the clock on and wakes every sleeper whose deadline has come.
    func advance(by duration: Duration) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.map(\.wake)
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for continuation in woken { continuation.resume() }
    }

    /// Waits (on the real clock, at most `limit`) until at least `count` sleepers wait: a test
    /// advances only once what it means to wake is asleep.
    func waitForSleepers(_ count: Int = 1, limit: Duration = .seconds(10)) async {
        let deadline = ContinuousClock.now + limit
        while sleeperCount < count && ContinuousClock.now < deadline { await Task.yield() }
    }
}
