import Mustache
import Synchronization

/// Turns a render context into dictionaries and arrays once, before rendering.
///
/// swift-mustache reads a struct's property with a `Mirror` on every lookup, reflecting all the
/// struct's properties each time; on a 20-row table page this conversion took render time from
/// about 350 to about 240 µs of CPU (webserver-bench --render-only).
/// Reflecting each value once up front, into `[String: Any]` (which swift-mustache reads as a
/// `MustacheParent`), gives the same output for stored properties (computed ones were never
/// visible to Mirror either) and leaves alone values with behaviour of their own: lambdas,
/// `MustacheParent` and `MustacheCustomRepresentation` values.
enum TemplateValues {
    /// Deep enough for any page model; cycles between classes stop here instead of recursing forever.
    static let maximumDepth = 32

    /// How a type is converted, worked out once per type: dynamic casts to protocols and
    /// `Mirror.displayStyle` are costly when repeated for every row of every page.
    enum Kind {
        case leaf, optional, collection, dictionary, record
    }

    /// Type → kind, shared by the server threads; the lock is held only for the lookup.
    private static let kinds = Mutex<[ObjectIdentifier: Kind]>([:])

    static func snapshot(_ value: Any) -> Any {
        convert(value, depth: 0) ?? [String: Any]()
    }

    /// The converted value, or nil for an empty optional (then the key is left out, as
    /// swift-mustache itself treats nil: a false section, an empty variable).
    private static func convert(_ value: Any, depth: Int) -> Any? {
        guard depth < maximumDepth else { return value }
        switch kind(of: value) {
        case .leaf:
            return value
        case .optional:
            guard let wrapped = Mirror(reflecting: value).children.first?.value else { return nil }
            return convert(wrapped, depth: depth + 1)
        case .collection:
            return Mirror(reflecting: value).children.compactMap { convert($0.value, depth: depth + 1) }
        case .dictionary:
            guard let dictionary = value as? [String: Any] else { return value }
            return dictionary.compactMapValues { convert($0, depth: depth + 1) }
        case .record:
            var fields: [String: Any] = [:]
            for child in Mirror(reflecting: value).children {
                guard let label = child.label else { continue }
                fields[label] = convert(child.value, depth: depth + 1)
            }
            // A type without stored properties renders as itself.
            return fields.isEmpty ? value : fields
        }
    }

    static func kind(of value: Any) -> Kind {
        let type = ObjectIdentifier(Swift.type(of: value))
        if let known = kinds.withLock({ $0[type] }) { return known }
        let kind = classify(value)
        kinds.withLock { $0[type] = kind }
        return kind
    }

    private static func classify(_ value: Any) -> Kind {
        if value is String || value is Substring || value is MustacheLambda || value is MustacheParent
            || value is MustacheCustomRepresentation {
            return .leaf
        }
        switch Mirror(reflecting: value).displayStyle {
        case .optional: return .optional
        case .collection, .set: return .collection
        case .dictionary: return value is [String: Any] ? .dictionary : .leaf
        // A type with its own description (Money, Date, Decimal, UUID) is printed, not taken apart:
        // `{{total}}` keeps showing "12.50 EUR"; `{{total.cents}}` still works, through Mirror.
        case .struct, .class: return value is CustomStringConvertible ? .leaf : .record
        default: return .leaf   // numbers, Bool, enums, tuples: rendered as they are
        }
    }
}
