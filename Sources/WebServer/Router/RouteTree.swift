import HTTPTypes

/// The routes, as a tree of path segments, frozen into a value when the server is created.
///
/// Matching prefers, at each segment, a literal over a parameter (`/clients/new` before
/// `/clients/:pk`), a parameter with a suffix over one without, and a trailing `**` last,
/// backtracking when a branch leads nowhere.
struct RouteNode: Sendable {
    struct ParameterEdge: Sendable {
        var name: String
        /// A literal the segment must end with, not part of the value (`.json` in `:pk.json`).
        var suffix: String
        var node: RouteNode
    }

    var literals: [String: RouteNode] = [:]
    var parameters: [ParameterEdge] = []
    /// Handlers of a trailing `**`, which matches one or more remaining segments.
    var catchAll: [HTTPRequest.Method: Route] = [:]
    var handlers: [HTTPRequest.Method: Route] = [:]

    /// The result of looking a request up.
    enum Match: Sendable {
        case found(Route, RouteParameters)
        /// The path exists but not for this method; carries the `Allow` value.
        case methodNotAllowed(allow: String)
        case notFound
    }

    mutating func insert(_ pattern: [RoutePatternSegment], method: HTTPRequest.Method, handler: Route) {
        guard let first = pattern.first else {
            handlers[method] = handler
            return
        }
        let rest = Array(pattern.dropFirst())
        switch first {
        case .literal(let text):
            literals[text, default: RouteNode()].insert(rest, method: method, handler: handler)
        case .parameter(let name, let suffix):
            if let index = parameters.firstIndex(where: { $0.name == name && $0.suffix == suffix }) {
                parameters[index].node.insert(rest, method: method, handler: handler)
            } else {
                var node = RouteNode()
                node.insert(rest, method: method, handler: handler)
                parameters.append(ParameterEdge(name: name, suffix: suffix, node: node))
                // Longer suffixes are more specific: try them first.
                parameters.sort { $0.suffix.count > $1.suffix.count }
            }
        case .catchAll:
            catchAll[method] = handler
        }
    }

    func match(method: HTTPRequest.Method, segments: [String]) -> Match {
        var parameters = RouteParameters()
        guard let handlers = find(segments[...], parameters: &parameters) else { return .notFound }
        if let handler = handlers[method] ?? (method == .head ? handlers[.get] : nil) {
            return .found(handler, parameters)
        }
        var allowed = Set(handlers.keys.map(\.rawValue))
        if allowed.contains("GET") { allowed.insert("HEAD") }
        return .methodNotAllowed(allow: allowed.sorted().joined(separator: ", "))
    }

    /// The handlers of the first node that matches `segments` completely.
    private func find(_ segments: ArraySlice<String>, parameters: inout RouteParameters) -> [HTTPRequest.Method: Route]? {
        guard let segment = segments.first else {
            return handlers.isEmpty ? nil : handlers
        }
        let rest = segments.dropFirst()
        if let node = literals[segment], let found = node.find(rest, parameters: &parameters) {
            return found
        }
        for edge in self.parameters where segment.count > edge.suffix.count && segment.hasSuffix(edge.suffix) {
            var attempt = parameters
            attempt.append(name: edge.name, value: String(segment.dropLast(edge.suffix.count)))
            if let found = edge.node.find(rest, parameters: &attempt) {
                parameters = attempt
                return found
            }
        }
        if !catchAll.isEmpty {
            parameters.catchAll = Array(segments)
            return catchAll
        }
        return nil
    }
}

/// One segment of a route pattern such as `/clients/:pk.json` or `/static/**`.
enum RoutePatternSegment: Equatable {
    case literal(String)
    case parameter(name: String, suffix: String)
    case catchAll

    /// Parses a pattern. Patterns are written by the programmer, so a malformed one stops the
    /// program at start-up with the reason, rather than routing surprisingly.
    static func parse(_ pattern: String) -> [RoutePatternSegment] {
        let pieces = pattern.split(separator: "/", omittingEmptySubsequences: true)
        return pieces.enumerated().map { index, piece in
            if piece == "**" {
                precondition(index == pieces.count - 1, "Route \"\(pattern)\": ** must be the last segment.")
                return .catchAll
            }
            guard piece.first == ":" else { return .literal(String(piece)) }
            let body = piece.dropFirst()
            let name = body.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            precondition(!name.isEmpty, "Route \"\(pattern)\": a parameter needs a name, as in :pk.")
            return .parameter(name: String(name), suffix: String(body.dropFirst(name.count)))
        }
    }
}
