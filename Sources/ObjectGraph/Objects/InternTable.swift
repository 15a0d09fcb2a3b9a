import Foundation

/// Gives each distinct value (an entity name, a store identifier) a small number for the
/// life of the process, so that an ``ObjectID`` holds two numbers and a key: 16 bytes, no
/// reference to count, equality and hashing by integers.
///
/// Numbers start at 1 (0 means "none": a temporary ID's store). Tables only grow. Values read
/// from outside (a URI) are refused past half of `capacity`, so input naming ever new stores
/// or entities can neither grow a table without bound nor fill it before the process's own
/// models and stores get their numbers.
///
/// `@unchecked Sendable`: `codes` and `values` are only touched while `lock` is held.
final class InternTable<Value: Hashable & Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var codes: [Value: UInt32] = [:]
    private var values: [Value] = []
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The number of `value`, given one now if it has none; nil once the table is full (for
    /// a value from outside, once it is half full).
    func code(for value: Value, fromOutside: Bool = false) -> UInt32? {
        lock.lock()
        defer { lock.unlock() }
        if let code = codes[value] { return code }
        guard values.count < (fromOutside ? capacity / 2 : capacity) else { return nil }
        values.append(value)
        let code = UInt32(values.count)
        codes[value] = code
        return code
    }

    /// The value numbered `code` (a number this table gave).
    func value(for code: UInt32) -> Value {
        lock.lock()
        defer { lock.unlock() }
        return values[Int(code) - 1]
    }
}
