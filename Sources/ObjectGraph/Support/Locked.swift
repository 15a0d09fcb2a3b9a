import Foundation

/// A value one thread at a time reads and changes: ObjectGraph's one lock.
///
/// ```swift
/// private let state = Locked(State())
/// let count = state.withLock { $0.entries.count }
/// ```
///
/// Why not `Synchronization.Mutex`: on Linux its contended path is a priority-inheriting futex
/// that the kernel hands over, with no atomic operation in user space, so ThreadSanitizer
/// cannot see that two holders follow one another and reports every access inside `withLock`
/// as a race (four threads appending under one `Mutex` are enough; Swift 6.3.1). ObjectGraph's
/// tests run under ThreadSanitizer in CI, and a checker that cries wolf hides the real races.
/// `NSLock` is a pthread mutex, which ThreadSanitizer follows.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched between `lock()` and `unlock()`.
    fileprivate let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock; never call it again from inside `body`.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

extension Locked where Value == Void {
    /// A lock that guards a critical section rather than a value: `Locked(())`.
    convenience init() {
        self.init(())
    }

    /// Runs `body` holding the lock. (No `inout` access to the empty value: ThreadSanitizer
    /// would place it one past the object's end, in whatever object the allocator put there.)
    func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
