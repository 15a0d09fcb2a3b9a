import Foundation

/// A property value as a context holds it: the typed value, never a managed object. Conflicts,
/// uniqueness violations and the inspection API carry values this way; formatting them is the
/// caller's last step.
public enum InspectedValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case date(Date)
    case decimal(Decimal)
    case uuid(UUID)
    /// Binary data, by size only.
    case data(byteCount: Int)
    /// A to-one relationship's destination.
    case reference(ObjectID)
    /// A to-many relationship's destinations.
    case references([ObjectID])
    /// A to-many relationship that is not loaded in this context (a relationship fault).
    case notLoaded

    package init(_ stored: StoredValue) {
        switch stored {
        case .null: self = .null
        case .bool(let v): self = .bool(v)
        case .int(let v): self = .integer(v)
        case .double(let v): self = .double(v)
        case .string(let v): self = .string(v)
        case .date(let v): self = .date(v)
        case .decimal(let v): self = .decimal(v)
        case .uuid(let v): self = .uuid(v)
        case .data(let v): self = .data(byteCount: v.count)
        case .reference(let id): self = .reference(id)
        case .references(let ids): self = .references(ids)
        case .unloaded: self = .notLoaded
        }
    }

    /// Plain text: strings as they are (no quotes), `nil`, dates in ISO 8601, IDs as
    /// `Client/p42` or `Client/t1a2b3c4d`. Not escaped for any format.
    public var description: String {
        switch self {
        case .null: return "nil"
        case .bool(let v): return String(v)
        case .integer(let v): return String(v)
        case .double(let v): return String(v)
        case .string(let v): return v
        case .date(let v): return v.formatted(.iso8601)
        case .decimal(let v): return "\(v)"
        case .uuid(let v): return v.uuidString
        case .data(let count): return "\(count) bytes"
        case .reference(let id): return id.description
        case .references(let ids): return "[" + ids.map(\.description).joined(separator: ", ") + "]"
        case .notLoaded: return "(not loaded)"
        }
    }

    /// As ``description``, with strings in quotes: for messages where an empty string or a
    /// string that reads like a number must stand out.
    public var quotedDescription: String {
        if case .string(let v) = self { return "\"\(v)\"" }
        return description
    }
}
