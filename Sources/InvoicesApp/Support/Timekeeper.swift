/// Elapsed time and waiting, from one clock: `ContinuousClock` in the server, a clock that a
/// test advances by hand in tests, so session expiry, deferred flushes and the inspector's
/// delays are tested without sleeping.
///
/// Times are durations since the timekeeper was made, so types that keep times need not know
/// which clock's instants they hold.
struct Timekeeper: Sendable {
    /// Time since the timekeeper was made.
    let now: @Sendable () -> Duration
    /// Waits `duration` on the clock (throws when the task is cancelled).
    let sleep: @Sendable (Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let start = clock.now
        now = { start.duration(to: clock.now) }
        sleep = { try await clock.sleep(for: $0) }
    }

    /// Real time.
    static let continuous = Timekeeper(ContinuousClock())
}
