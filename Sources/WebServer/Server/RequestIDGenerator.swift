import Synchronization

/// Short request IDs, unique within a process and unlikely to repeat across restarts:
/// a random per-process prefix and a counter (`3f9a1c-1b`).
final class RequestIDGenerator: Sendable {
    private let prefix = String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16)
    private let counter = Atomic<Int>(0)

    func next() -> String {
        let value = counter.add(1, ordering: .relaxed).newValue
        return prefix + "-" + String(value, radix: 16)
    }
}
