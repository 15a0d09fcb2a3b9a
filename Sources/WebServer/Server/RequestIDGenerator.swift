import Synchronization

/// Short request IDs, unique within a process and unlikely to repeat across restarts:
/// a random per-process prefix and a counter, in hex (`3f9a1c07-1b`).
///
/// Written by hand into the string's buffer: every response carries one, and the generic
/// integer formatting showed up in profiles of the plain route.
final class RequestIDGenerator: Sendable {
    private let prefix: [UInt8]
    private let counter = Atomic<UInt64>(0)
    private static let digits = Array("0123456789abcdef".utf8)

    init() {
        prefix = Array((String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16) + "-").utf8)
    }

    func next() -> String {
        var value = counter.add(1, ordering: .relaxed).newValue
        var hex: (UInt64, UInt64) = (0, 0)   // 16 bytes of scratch space, enough for a UInt64 in hex
        let count = withUnsafeMutableBytes(of: &hex) { scratch in
            var index = scratch.count
            repeat {
                index -= 1
                scratch[index] = Self.digits[Int(value & 0xF)]
                value >>= 4
            } while value != 0
            return scratch.count - index
        }
        return String(unsafeUninitializedCapacity: prefix.count + count) { buffer in
            var written = buffer.initialize(fromContentsOf: prefix)
            withUnsafeBytes(of: hex) { scratch in
                for byte in scratch[(scratch.count - count)...] {
                    buffer[written] = byte
                    written += 1
                }
            }
            return written
        }
    }
}
