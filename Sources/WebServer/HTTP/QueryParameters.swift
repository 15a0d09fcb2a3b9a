/// Name-value pairs from a query string or an `application/x-www-form-urlencoded` body.
///
/// Order and repeated names are kept: `?tag=a&tag=b` gives `["tag"] == "a"` and
/// `values(for: "tag") == ["a", "b"]`.
public struct QueryParameters: Sendable, Sequence {
    /// One name-value pair, decoded.
    public struct Pair: Sendable, Hashable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Every pair in the order received.
    public private(set) var pairs: [Pair]

    /// Creates parameters from decoded pairs.
    public init(_ pairs: [Pair] = []) { self.pairs = pairs }

    /// The first value for `name`, or nil.
    public subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        pairs.compactMap { $0.name == name ? $0.value : nil }
    }

    public var isEmpty: Bool { pairs.isEmpty }

    public func makeIterator() -> IndexingIterator<[Pair]> { pairs.makeIterator() }

    mutating func append(name: String, value: String) {
        pairs.append(Pair(name: name, value: value))
    }

    /// Parses `a=1&b=2&b=3` (`+` is a space; a name without `=` has an empty value).
    /// - Parameter allowsNUL: whether values may hold `%00` (see ``PercentDecoding``).
    /// - Throws: `HTTPError` 400 naming the bad escape or the invalid UTF-8.
    static func parse(_ bytes: some Collection<UInt8>, part: String, allowsNUL: Bool = false) throws(HTTPError) -> QueryParameters {
        var parameters = QueryParameters()
        for piece in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let name: String
            let value: String
            if let equals = piece.firstIndex(of: UInt8(ascii: "=")) {
                name = try PercentDecoding.decode(piece[..<equals], plusAsSpace: true, part: part)
                value = try PercentDecoding.decode(piece[piece.index(after: equals)...], plusAsSpace: true, part: part,
                                                   allowsNUL: allowsNUL)
            } else {
                name = try PercentDecoding.decode(piece, plusAsSpace: true, part: part)
                value = ""
            }
            parameters.append(name: name, value: value)
        }
        return parameters
    }
}
