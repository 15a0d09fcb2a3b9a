import CLibPQBench

/// The parameters of a prepared statement in libpq's binary format, in buffers made once and
/// rewritten per row, so a hot loop allocates nothing (what a careful C programmer does).
final class PGParameters {
    let count: Int32
    let values: UnsafeMutablePointer<UnsafePointer<CChar>?>
    let lengths: UnsafeMutablePointer<Int32>
    let formats: UnsafeMutablePointer<Int32>
    private let numbers: UnsafeMutablePointer<UInt64>
    private var texts: [Int: UnsafeMutablePointer<CChar>] = [:]

    init(count: Int) {
        self.count = Int32(count)
        values = .allocate(capacity: count)
        lengths = .allocate(capacity: count)
        formats = .allocate(capacity: count)
        numbers = .allocate(capacity: count)
        formats.initialize(repeating: 1, count: count)
        lengths.initialize(repeating: 8, count: count)
        values.initialize(repeating: nil, count: count)
        numbers.initialize(repeating: 0, count: count)
        for i in 0..<count { values[i] = UnsafeRawPointer(numbers + i).assumingMemoryBound(to: CChar.self) }
    }

    deinit {
        for (_, text) in texts { text.deallocate() }
        values.deallocate(); lengths.deallocate(); formats.deallocate(); numbers.deallocate()
    }

    @inline(__always)
    func set(_ index: Int, _ value: Int64) { numbers[index] = UInt64(bitPattern: value).bigEndian }

    @inline(__always)
    func set(_ index: Int, _ value: Double) { numbers[index] = value.bitPattern.bigEndian }

    /// Text in binary format is its UTF-8 bytes; nil is SQL NULL.
    func set(_ index: Int, _ value: String?) {
        texts[index]?.deallocate()
        texts[index] = nil
        guard let value else {
            values[index] = nil
            lengths[index] = 0
            return
        }
        let bytes = Array(value.utf8)
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, bytes.count))
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: source.count) }
        }
        texts[index] = buffer
        values[index] = UnsafePointer(buffer)
        lengths[index] = Int32(bytes.count)
    }
}
