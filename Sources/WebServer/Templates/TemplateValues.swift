import Mustache

/// Turns a render context into dictionaries and arrays once, before rendering.
///
/// swift-mustache reads a struct's property with a `Mirror` on every lookup, reflecting all the
/// struct's properties each time; measured on a 20-row table page, that was half the render time.
/// Reflecting each value once up front, into `[String: Any]` (which swift-mustache reads as a
/// `MustacheParent`), gives the same output for stored properties (computed ones were never
/// visible to Mirror either) and leaves alone values with behaviour of their own: lambdas,
/// `MustacheParent` and `MustacheCustomRepresentation` values.
enum TemplateValues {
    /// Deep enough for any page model; cycles between classes stop here instead of recursing forever.
    static let maximumDepth = 32

    static func snapshot(_ value: Any, depth: Int = 0) -> Any {
        guard depth < maximumDepth else { return value }
        // The common leaves first: casts to concrete types are cheap, protocol checks are not.
        switch value {
        case is String, is Int, is Double, is Bool, is Substring: return value
        default: break
        }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            guard let wrapped = mirror.children.first?.value else { return value }
            return snapshot(wrapped, depth: depth + 1)
        case .collection, .set:
            return mirror.children.map { snapshot($0.value, depth: depth + 1) }
        case .dictionary:
            guard let dictionary = value as? [String: Any] else { return value }
            return dictionary.mapValues { snapshot($0, depth: depth + 1) }
        case .struct, .class:
            if value is MustacheLambda || value is MustacheParent || value is MustacheCustomRepresentation {
                return value
            }
            var fields: [String: Any] = [:]
            for child in mirror.children {
                guard let label = child.label else { continue }
                fields[label] = snapshot(child.value, depth: depth + 1)
            }
            // A struct without stored properties (a wrapper type) renders as itself.
            return fields.isEmpty ? value : fields
        default:
            return value
        }
    }
}
