import Foundation
import Synchronization

/// The identity of a managed object: an entity and a key, temporary until the store makes it
/// permanent.
///
/// IDs are values: immutable, `Hashable`, `Sendable` and `Codable`, so they are what crosses
/// queues, tasks and processes (objects never do). Two IDs are equal in every context of a
/// coordinator when they name the same row.
///
/// URI forms: `x-objectgraph:///Client/t<UUID>` (temporary) and
/// `x-objectgraph://<store UUID>/Client/p<primary key>` (permanent). Resolve a permanent URI
/// in any coordinator on the same store with
/// ``PersistentStoreCoordinator/managedObjectID(forURIRepresentation:)``.
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
    /// What an ID names, as the rest of ObjectGraph builds one.
    enum Key: Hashable, Sendable {
        case temporary(UUID)
        case permanent(store: UUID, primaryKey: Int64)
    }

    // Sixteen bytes with nothing to retain: the entity's and the store's numbers in this
    // process (see `InternTable`) and the key. A temporary ID has store number 0 and a number
    // of this process in `value` (negative for one parsed from another process's URI).
    let entityCode: UInt32
    let storeCode: UInt32
    let value: Int64

    init(entityCode: UInt32, storeCode: UInt32, value: Int64) {
        self.entityCode = entityCode
        self.storeCode = storeCode
        self.value = value
    }

    // Hashing: one keyed mix of the sixteen bytes (`mixedHashBits`) instead of SipHash. A
    // save puts each of its IDs into several sets and dictionaries; SipHash's finalization
    // alone was 3% of an insert.

    /// The ID's bits mixed with `seed` into a well-spread 64-bit hash.
    @inline(__always)
    func mixedHash(seed: UInt64) -> UInt64 {
        mixedHashBits(UInt64(bitPattern: value) ^ (UInt64(entityCode) << 40) ^ (UInt64(storeCode) << 56) ^ seed)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(mixedHash(seed: 0))
    }

    /// What `Set` and `Dictionary` hash with (the customization point `Hashable` declares,
    /// which the standard library's own integers use): the mix keyed by the table's seed.
    public func _rawHashValue(seed: Int) -> Int {
        Int(truncatingIfNeeded: mixedHash(seed: UInt64(bitPattern: Int64(seed))))
    }

    /// An ID from names; nil only when the process has met more distinct entity names or
    /// stores than it keeps numbers for (see `InternTable`; `fromOutside` for names read
    /// from input).
    init?(checkedEntityName entityName: String, key: Key, fromOutside: Bool = false) {
        guard let entity = Self.entityNames.code(for: entityName, fromOutside: fromOutside) else { return nil }
        switch key {
        case .temporary(let uuid):
            if let number = Self.temporaryNumber(uuid) {
                self.init(entityCode: entity, storeCode: 0, value: number)
            } else {
                guard let foreign = Self.foreignTemporaries.code(for: uuid, fromOutside: true) else { return nil }
                self.init(entityCode: entity, storeCode: 0, value: -Int64(foreign))
            }
        case .permanent(let store, let pk):
            guard let code = Self.stores.code(for: store, fromOutside: fromOutside) else { return nil }
            self.init(entityCode: entity, storeCode: code, value: pk)
        }
    }

    /// An ID of an entity and store this process knows (a model's entity, an opened store).
    init(entityName: String, key: Key) {
        guard let id = ObjectID(checkedEntityName: entityName, key: key) else {
            preconditionFailure("more than \(Self.tableCapacity) distinct entity names or stores in one process")
        }
        self = id
    }

    /// The entity's name.
    public var entityName: String { entityCode == 0 ? "" : Self.entityNames.value(for: entityCode) }

    var key: Key {
        if storeCode == 0 { return .temporary(temporaryUUID) }
        return .permanent(store: Self.stores.value(for: storeCode), primaryKey: value)
    }

    /// The number of an entity name of this process's models.
    static func entityCode(for name: String) -> UInt32 {
        guard let code = entityNames.code(for: name) else {
            preconditionFailure("more than \(tableCapacity) distinct entity names in one process")
        }
        return code
    }

    /// The number of a store this process opened.
    static func storeCode(for identifier: UUID) -> UInt32 {
        guard let code = stores.code(for: identifier) else {
            preconditionFailure("more than \(tableCapacity) distinct stores in one process")
        }
        return code
    }

    /// A new temporary ID, unique within the process: a counter (a temporary ID never leaves
    /// its process, so no random UUID per inserted object).
    static func makeTemporary(entityName: String) -> ObjectID {
        makeTemporary(entityCode: entityCode(for: entityName))
    }

    static func makeTemporary(entityCode: UInt32) -> ObjectID {
        ObjectID(entityCode: entityCode, storeCode: 0, value: Int64(temporaryCounter.add(1, ordering: .relaxed).newValue))
    }

    static let tableCapacity = 1 << 20
    static let entityNames = InternTable<String>(capacity: tableCapacity)
    static let stores = InternTable<UUID>(capacity: tableCapacity)
    /// Temporary UUIDs of other processes, met in URIs.
    private static let foreignTemporaries = InternTable<UUID>(capacity: tableCapacity)
    /// The first eight bytes of this process's temporary UUIDs; the counter is the last eight.
    private static let temporaryPrefix = UUID()
    private static let temporaryCounter = Atomic<UInt64>(0)

    private var temporaryUUID: UUID {
        if value < 0 { return Self.foreignTemporaries.value(for: UInt32(-value)) }
        var bytes = Self.temporaryPrefix.uuid
        withUnsafeMutableBytes(of: &bytes) { raw in
            for i in 0..<8 { raw[8 + i] = UInt8(truncatingIfNeeded: UInt64(value) >> (8 * (7 - i))) }
        }
        return UUID(uuid: bytes)
    }

    /// The counter of a UUID this process made for a temporary ID; nil for any other UUID.
    private static func temporaryNumber(_ uuid: UUID) -> Int64? {
        var bytes = uuid.uuid, prefix = temporaryPrefix.uuid
        let number: Int64? = withUnsafeBytes(of: &bytes) { raw in
            withUnsafeBytes(of: &prefix) { mine in
                guard raw.prefix(8).elementsEqual(mine.prefix(8)) else { return nil }
                return Int64(bitPattern: raw.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            }
        }
        return number.flatMap { $0 >= 0 ? $0 : nil }
    }

    /// Whether the store has not yet assigned this object's permanent ID.
    public var isTemporaryID: Bool { storeCode == 0 }

    /// The row's primary key; nil for temporary IDs.
    public var primaryKey: Int64? { storeCode == 0 ? nil : value }

    /// The identifier of the store that holds the row; nil for temporary IDs.
    public var storeIdentifier: UUID? { storeCode == 0 ? nil : Self.stores.value(for: storeCode) }

    /// The URI form, stable across launches and coordinators for permanent IDs.
    public func uriRepresentation() -> URL {
        switch key {
        case .temporary(let uuid):
            return URL(string: "\(Self.scheme):///\(entityName)/t\(uuid.uuidString)")
                ?? URL(fileURLWithPath: "/")
        case .permanent(let store, let pk):
            return URL(string: "\(Self.scheme)://\(store.uuidString)/\(entityName)/p\(pk)")
                ?? URL(fileURLWithPath: "/")
        }
    }

    static let scheme = "x-objectgraph"

    /// Parses a URI made by `uriRepresentation()`; nil when it is not one.
    init?(uri: URL) {
        guard uri.scheme == Self.scheme else { return nil }
        let parts = uri.path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == 2, let marker = parts[1].first else { return nil }
        let entity = String(parts[0])
        let rest = String(parts[1].dropFirst())
        switch marker {
        case "t":
            guard let uuid = UUID(uuidString: rest), (uri.host ?? "").isEmpty else { return nil }
            self.init(checkedEntityName: entity, key: .temporary(uuid), fromOutside: true)
        case "p":
            guard let host = uri.host, let store = UUID(uuidString: host),
                  let pk = Int64(rest), pk > 0 else { return nil }
            self.init(checkedEntityName: entity, key: .permanent(store: store, primaryKey: pk), fromOutside: true)
        default:
            return nil
        }
    }

    public var description: String {
        storeCode == 0 ? "\(entityName)/t\(temporaryUUID.uuidString.prefix(8))" : "\(entityName)/p\(value)"
    }
}

extension ObjectID: Codable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let url = try container.decode(URL.self)
        guard let id = ObjectID(uri: url) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\(url) is not an ObjectGraph object ID URI")
        }
        self = id
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(uriRepresentation())
    }
}
