import Foundation

/// A property's value as ObjectGraph keeps it in row snapshots, objects and the store.
///
/// One case per attribute type, so reading a typed property is a switch, not a dynamic cast;
/// plus the two relationship forms. Arrays of these are shared copy-on-write between the row
/// cache and every object materialized from it, so a fetched object costs no value copies.
package enum StoredValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case date(Date)
    case decimal(Decimal)
    case uuid(UUID)
    case data(Data)
    /// A to-one relationship's destination.
    case reference(ObjectID)
    /// A to-many relationship's destinations, in order for ordered relationships.
    case references([ObjectID])
    /// A to-many relationship not loaded yet (a relationship fault).
    case unloaded

    var isNull: Bool { if case .null = self { return true } else { return false } }

    /// The value as a Swift value for dynamic access and messages.
    var anyValue: Any? {
        switch self {
        case .null, .unloaded: return nil
        case .bool(let v): return v
        case .int(let v): return v
        case .double(let v): return v
        case .string(let v): return v
        case .date(let v): return v
        case .decimal(let v): return v
        case .uuid(let v): return v
        case .data(let v): return v
        case .reference(let v): return v
        case .references(let v): return v
        }
    }

    /// A short, human-readable rendering for error messages and the inspector.
    var displayString: String {
        switch self {
        case .null: return "nil"
        case .unloaded: return "(not loaded)"
        case .bool(let v): return String(v)
        case .int(let v): return String(v)
        case .double(let v): return String(v)
        case .string(let v): return "\"\(v)\""
        case .date(let v): return v.formatted(.iso8601)
        case .decimal(let v): return "\(v)"
        case .uuid(let v): return v.uuidString
        case .data(let v): return "\(v.count) bytes"
        case .reference(let id): return id.description
        case .references(let ids): return "[\(ids.map(\.description).joined(separator: ", "))]"
        }
    }
}
