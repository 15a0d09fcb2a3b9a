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
    enum Key: Hashable, Sendable {
        case temporary(UUID)
        case permanent(store: UUID, primaryKey: Int64)
    }

    /// The entity's name.
    public let entityName: String
    let key: Key

    init(entityName: String, key: Key) {
        self.entityName = entityName
        self.key = key
    }

    /// Temporary IDs are unique within the process: a random prefix per process and a
    /// counter (cheaper than a random UUID per inserted object, and just as unique here,
    /// since a temporary ID never leaves its process).
    static func makeTemporary(entityName: String) -> ObjectID {
        let n = temporaryCounter.add(1, ordering: .relaxed).newValue
        var bytes = temporaryPrefix.uuid
        withUnsafeMutableBytes(of: &bytes) { raw in
            for i in 0..<8 { raw[8 + i] = UInt8(truncatingIfNeeded: n >> (8 * (7 - i))) }
        }
        return ObjectID(entityName: entityName, key: .temporary(UUID(uuid: bytes)))
    }

    private static let temporaryPrefix = UUID()
    private static let temporaryCounter = Atomic<UInt64>(0)

    /// Whether the store has not yet assigned this object's permanent ID.
    public var isTemporaryID: Bool {
        if case .temporary = key { return true } else { return false }
    }

    /// The row's primary key; nil for temporary IDs.
    public var primaryKey: Int64? {
        if case .permanent(_, let pk) = key { return pk } else { return nil }
    }

    /// The identifier of the store that holds the row; nil for temporary IDs.
    public var storeIdentifier: UUID? {
        if case .permanent(let store, _) = key { return store } else { return nil }
    }

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
            self.init(entityName: entity, key: .temporary(uuid))
        case "p":
            guard let host = uri.host, let store = UUID(uuidString: host),
                  let pk = Int64(rest), pk > 0 else { return nil }
            self.init(entityName: entity, key: .permanent(store: store, primaryKey: pk))
        default:
            return nil
        }
    }

    public var description: String {
        switch key {
        case .temporary(let uuid): return "\(entityName)/t\(uuid.uuidString.prefix(8))"
        case .permanent(_, let pk): return "\(entityName)/p\(pk)"
        }
    }

    // Hashing the entity name costs more than the key; the key alone is nearly unique.
    public func hash(into hasher: inout Hasher) {
        switch key {
        case .temporary(let uuid): hasher.combine(uuid)
        case .permanent(_, let pk): hasher.combine(pk)
        }
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
