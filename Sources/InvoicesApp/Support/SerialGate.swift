/// Runs async bodies one at a time, in arrival order: a mutex that may be held across
/// suspension points, which a lock must never be.
actor SerialGate {
    private var isBusy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func run<T: Sendable>(_ body: @Sendable () async -> T) async -> T {
        if isBusy {
            await withCheckedContinuation { waiters.append($0) }
        }
        isBusy = true
        defer {
            // Handed straight to the next waiter, which runs with `isBusy` still set.
            if waiters.isEmpty { isBusy = false } else { waiters.removeFirst().resume() }
        }
        return await body()
    }
}
