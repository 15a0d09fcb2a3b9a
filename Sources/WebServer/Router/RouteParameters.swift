/// The values a route pattern captured, decoded: `:pk` in `/clients/:pk` or `/clients/:pk.json`,
/// and the rest of the path for a trailing `**`.
public struct RouteParameters: Sendable {
    private var values: [(name: String, value: String)] = []
    /// The decoded path segments matched by a trailing `**` (empty when the route has none).
    /// Kept as segments so that an encoded slash (`%2F`) stays inside its segment.
    public internal(set) var catchAll: [String] = []

    public init() {}

    /// The value captured for `name`, or nil.
    public subscript(name: String) -> String? {
        values.last { $0.name == name }?.value
    }

    /// The value for `name` converted to `T`.
    /// - Throws: `HTTPError` 404 when it is missing or does not convert (a URL that names nothing).
    public func require<T: LosslessStringConvertible>(_ name: String, as type: T.Type = T.self) throws(HTTPError) -> T {
        guard let text = self[name], let value = T(text) else {
            throw HTTPError(.notFound, "Not found: \"\(self[name] ?? "")\" is not a valid \(name).")
        }
        return value
    }

    mutating func append(name: String, value: String) {
        values.append((name, value))
    }
}
