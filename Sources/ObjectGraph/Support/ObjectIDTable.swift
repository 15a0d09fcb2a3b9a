/// A hash table keyed by ``ObjectID``: what a context's registry and the row cache keep their
/// entries in.
///
/// A `Dictionary` hashes every key with SipHash and shifts entries back on every removal,
/// rehashing them; a fetch or a save of N objects makes several such operations per object.
/// Here an ID (16 bytes of integers) is mixed by one multiply-xorshift round keyed by a
/// random number of the process (so keys chosen from outside, such as primary keys in URLs,
/// cannot be aimed at one bucket), probes are linear, and a removal leaves a tombstone that
/// the next growth sweeps away. Tables grow at 7/8 full (a `Dictionary` at 3/4): a fetch of
/// 100,000 rows then needs slots for 131,072 entries rather than 262,144, in the registry and
/// in the row cache alike.
///
/// A value type like `Dictionary`: the owner's lock or queue guards it.
struct ObjectIDTable<Value>: Sequence {
    private enum Slot {
        case empty
        case removed
        case full(ObjectID, Value)
    }

    private var slots: [Slot] = []
    /// Entries held.
    private(set) var count = 0
    /// Entries plus tombstones: what probes walk over.
    private var occupied = 0

    private static var seed: UInt64 { objectIDTableSeed }

    init() {}

    var isEmpty: Bool { count == 0 }

    /// Where `id` is, or nil.
    func index(forKey id: ObjectID) -> Int? {
        guard count > 0 else { return nil }
        let mask = slots.count - 1
        var i = Self.bucket(of: id, mask: mask)
        while true {
            switch slots[i] {
            case .empty: return nil
            case .full(let key, _) where key == id: return i
            default: i = (i + 1) & mask
            }
        }
    }

    subscript(id: ObjectID) -> Value? {
        get {
            guard let i = index(forKey: id), case .full(_, let value) = slots[i] else { return nil }
            return value
        }
        set {
            if let newValue { updateValue(newValue, forKey: id) } else { removeValue(forKey: id) }
        }
    }

    /// The value at an index `index(forKey:)` returned (until the table next changes).
    subscript(at index: Int) -> Value {
        get {
            guard case .full(_, let value) = slots[index] else { preconditionFailure("no entry at \(index)") }
            return value
        }
        set {
            guard case .full(let key, _) = slots[index] else { preconditionFailure("no entry at \(index)") }
            slots[index] = .full(key, newValue)
        }
    }

    mutating func updateValue(_ value: Value, forKey id: ObjectID) {
        if let i = index(forKey: id) {
            slots[i] = .full(id, value)
            return
        }
        if (occupied + 1) * 8 > slots.count * 7 { resize(toHold: count + 1) }
        let mask = slots.count - 1
        var i = Self.bucket(of: id, mask: mask)
        while true {
            switch slots[i] {
            case .empty:
                occupied += 1
                fallthrough
            case .removed:
                slots[i] = .full(id, value)
                count += 1
                return
            case .full:
                i = (i + 1) & mask
            }
        }
    }

    @discardableResult
    mutating func removeValue(forKey id: ObjectID) -> Value? {
        guard let i = index(forKey: id) else { return nil }
        return remove(at: i)
    }

    @discardableResult
    mutating func remove(at index: Int) -> Value {
        guard case .full(_, let value) = slots[index] else { preconditionFailure("no entry at \(index)") }
        slots[index] = .removed
        count -= 1
        return value
    }

    mutating func removeAll(keepingCapacity: Bool = false) {
        if keepingCapacity {
            for i in slots.indices { slots[i] = .empty }
        } else {
            slots = []
        }
        count = 0
        occupied = 0
    }

    /// Room for `capacity` entries without growing.
    mutating func reserveCapacity(_ capacity: Int) {
        if capacity * 8 > slots.count * 7 { resize(toHold: capacity) }
    }

    var keys: [ObjectID] { map(\.key) }
    var values: [Value] { map(\.value) }

    func makeIterator() -> AnyIterator<(key: ObjectID, value: Value)> {
        var i = 0
        let slots = self.slots
        return AnyIterator {
            while i < slots.count {
                defer { i += 1 }
                if case .full(let key, let value) = slots[i] { return (key, value) }
            }
            return nil
        }
    }

    /// Rebuilds the slots for at least `entries` entries, at most 7/8 full, tombstones gone.
    private mutating func resize(toHold entries: Int) {
        var size = 16
        while entries * 8 > size * 7 { size *= 2 }
        if size < slots.count && count * 2 > slots.count { size = slots.count }
        let old = slots
        slots = [Slot](repeating: .empty, count: size)
        occupied = count
        let mask = size - 1
        for case .full(let key, let value) in old {
            var i = Self.bucket(of: key, mask: mask)
            while case .full = slots[i] { i = (i + 1) & mask }
            slots[i] = .full(key, value)
        }
    }

    private static func bucket(of id: ObjectID, mask: Int) -> Int {
        Int(truncatingIfNeeded: id.mixedHash(seed: seed)) & mask
    }
}

/// The process's key of `ObjectIDTable`'s mixing, drawn once.
private let objectIDTableSeed = UInt64.random(in: .min ... .max)
