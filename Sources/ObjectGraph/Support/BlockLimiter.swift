import Synchronization

/// Lets at most so many blocks of nested private-queue contexts run at once; the others wait
/// their turn, in order, without a thread.
///
/// Why: a nested context's block may wait on its ancestors' queues (a fault, a fetch's overlay,
/// a save), each wait holding a Dispatch thread. Hundreds of children scheduling blocks at once
/// (a server with many open forms) would hold every thread Dispatch will make, and the
/// ancestors' own blocks, queued behind, would never get one: the process would hang. With
/// the number of such blocks bounded well below Dispatch's threads, the ancestors always find
/// one.
final class BlockLimiter: Sendable {
    private struct State {
        var available: Int
        var waiting: [@Sendable () -> Void] = []
        var head = 0
    }
    private let state: Locked<State>
    let limit: Int

    /// How many blocks of nested contexts the whole process runs at once, unless a
    /// coordinator is given a limit of its own.
    static let processLimit = 64
    /// The process's limiter, shared by coordinators.
    static let shared = BlockLimiter(limit: processLimit)

    init(limit: Int) {
        self.limit = max(1, limit)
        state = Locked(State(available: max(1, limit)))
    }

    /// Runs `start` now if a place is free, else when one is (in the order asked). `start`
    /// must call ``release()`` once the block it starts has finished.
    func acquire(_ start: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            guard state.available > 0, state.head == state.waiting.count else {
                state.waiting.append(start)
                return false
            }
            state.available -= 1
            return true
        }
        if now { start() }
    }

    /// Frees a place, starting the longest waiting block with it.
    func release() {
        let next = state.withLock { state -> (@Sendable () -> Void)? in
            guard state.head < state.waiting.count else {
                state.available += 1
                return nil
            }
            let next = state.waiting[state.head]
            state.head += 1
            if state.head == state.waiting.count {
                state.waiting.removeAll(keepingCapacity: true)
                state.head = 0
            }
            return next
        }
        next?()
    }

    /// How many blocks wait for a place.
    var waitingCount: Int { state.withLock { $0.waiting.count - $0.head } }
}
