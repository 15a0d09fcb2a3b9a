#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization

extension HTTPServer {
    /// Waits for SIGINT or SIGTERM and returns which one arrived, for an executable's main:
    ///
    /// ```swift
    /// try server.start()
    /// let signal = await HTTPServer.terminationSignal()
    /// await server.shutdown()          // requests in flight finish, then the process can exit
    /// ```
    /// While waiting, the signals no longer end the process by themselves; after the first one
    /// arrives they do again, so a second Ctrl-C still stops a shutdown that hangs.
    /// - Parameter listening: called once the signals are being watched (a signal sent before
    ///   that is not seen).
    public static func terminationSignal(listening: @Sendable () -> Void = {}) async -> Int32 {
        await withCheckedContinuation { continuation in
            let waiter = SignalWaiter(continuation: continuation)
            waiter.start()
            listening()
        }
    }
}

/// The dispatch sources of one `terminationSignal()` call.
///
/// @unchecked Sendable: `sources` is written once in `start()` before any handler can run, and
/// only read afterwards; `continuation` is taken exactly once under its mutex.
private final class SignalWaiter: @unchecked Sendable {
    private let continuation: Mutex<CheckedContinuation<Int32, Never>?>
    private var sources: [any DispatchSourceSignal] = []

    init(continuation: CheckedContinuation<Int32, Never>) {
        self.continuation = Mutex(continuation)
    }

    func start() {
        for number in [SIGINT, SIGTERM] {
            // Ignored at the process level so that only the dispatch source sees it.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in fire(number) }
            sources.append(source)
        }
        for source in sources { source.resume() }
    }

    private func fire(_ number: Int32) {
        guard let waiting = continuation.withLock({ $0.take() }) else { return }
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        waiting.resume(returning: number)
    }
}
