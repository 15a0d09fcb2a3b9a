import Foundation

/// Runs async bodies one at a time, in arrival order: a mutex that can be held across
/// suspension points (which a lock must never be held across).
actor AsyncSerialGate {
    private var isBusy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        if isBusy {
            await withCheckedContinuation { waiters.append($0) }
        }
        isBusy = true
        defer {
            // Hand over directly: the next waiter runs with `isBusy` still set.
            if waiters.isEmpty { isBusy = false } else { waiters.removeFirst().resume() }
        }
        return try await body()
    }
}
