import Dispatch

/// The blocks of one nested private-queue context waiting for a place in the coordinator's
/// ``BlockLimiter``, in the order they were scheduled.
///
/// The limiter grants places in order, but two places freed at once start their waiters on
/// two threads: had each grant carried its own block to `queue.async`, the later block could
/// reach the context's queue first. So a grant carries no block: it takes the context's oldest
/// waiting block and puts it on the queue under this queue's lock, and blocks reach the
/// queue in the order they were scheduled, as `perform` promises.
final class NestedBlockQueue: Sendable {
    private struct State {
        var waiting: [@Sendable () -> Void] = []
        var head = 0
    }
    private let state = Locked(State())

    /// Queues `work` for `queue` once `limiter` grants a place; the place is released when
    /// the work has run.
    func submit(_ work: @escaping @Sendable () -> Void, to queue: DispatchQueue, limiter: BlockLimiter) {
        state.withLock { $0.waiting.append(work) }
        limiter.acquire { [self] in
            let started = state.withLock { state -> Bool in
                // One grant per block submitted: there is always one waiting.
                guard state.head < state.waiting.count else { return false }
                let next = state.waiting[state.head]
                state.head += 1
                if state.head == state.waiting.count {
                    state.waiting.removeAll(keepingCapacity: true)
                    state.head = 0
                }
                // Non-blocking: the block runs later, on the queue, outside this lock.
                queue.async {
                    next()
                    limiter.release()
                }
                return true
            }
            if !started { limiter.release() }
        }
    }
}
