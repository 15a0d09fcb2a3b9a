/// A header value made of a type and parameters, as Content-Type and Content-Disposition
/// are: `form-data; name="file"; filename="a;b.csv"` (RFC 9110 §5.6.6, RFC 2183, RFC 7578).
///
/// - Parameters are separated by `;` outside quotes, and their names compare
///   case-insensitively (stored lowercased).
/// - A value is a token, or a quoted string in which `\"` stands for `"` and `\\` for `\`.
///   A backslash before any other character is kept with it: browsers never escape there,
///   and old ones sent Windows paths (`"C:\Users\me\a.csv"`) as they were.
/// - Anything ambiguous is an error rather than a guess: a quote left open, text after a
///   closing quote, a parameter without `=`, or a name given twice. Two parsers reading one
///   header two ways is how `filename="a;name=evil"` once became a field named `evil"`.
struct HeaderParameters: Sendable, Equatable {
    /// The value before the first `;`, lowercased and trimmed (`form-data`, `multipart/form-data`).
    let type: String
    /// Each parameter's value by lowercased name.
    let parameters: [String: String]

    /// The value of the parameter `name` (any case), or nil.
    subscript(name: String) -> String? { parameters[name.lowercased()] }

    /// Why a header value cannot be read; each says where, for a 400 message.
    enum ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        case unclosedQuote(parameter: String)
        case textAfterQuotedValue(parameter: String)
        case quoteInsideToken(parameter: String)
        case missingEquals(near: String)
        case invalidName(String)
        case repeated(parameter: String)

        var description: String {
            switch self {
            case .unclosedQuote(let name): "the quoted value of \(name) is never closed"
            case .textAfterQuotedValue(let name): "text follows the quoted value of \(name)"
            case .quoteInsideToken(let name): "the value of \(name) has a quote inside it without being quoted"
            case .missingEquals(let near): "a parameter has no '=' (near \"\(near)\")"
            case .invalidName(let name): "\"\(name)\" is not a parameter name"
            case .repeated(let name): "the parameter \(name) is given twice"
            }
        }
    }

    /// Parses a whole header value.
    init(parsing header: String) throws(ParseError) {
        var reader = Reader(bytes: Array(header.utf8))
        type = reader.take { $0 != Reader.semicolon }.lowercased()
        var parameters: [String: String] = [:]
        while reader.skip(Reader.semicolon) {
            reader.skipSpaces()
            if reader.isAtEnd || reader.peek == Reader.semicolon { continue }   // `a;` or `a;;b=c`
            let (name, value) = try reader.parameter()
            guard parameters[name] == nil else { throw .repeated(parameter: name) }
            parameters[name] = value
        }
        self.parameters = parameters
    }
}

/// A cursor over a header value's bytes. Every delimiter is ASCII, so cutting at one never
/// splits a UTF-8 sequence.
private struct Reader {
    static let semicolon = UInt8(ascii: ";"), equals = UInt8(ascii: "="), quote = UInt8(ascii: "\""),
               backslash = UInt8(ascii: "\\")

    let bytes: [UInt8]
    var index = 0

    var isAtEnd: Bool { index >= bytes.count }
    var peek: UInt8? { isAtEnd ? nil : bytes[index] }

    mutating func skip(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    mutating func skipSpaces() {
        while let byte = peek, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { index += 1 }
    }

    /// The bytes while `condition` holds, trimmed of spaces and tabs, as text.
    mutating func take(while condition: (UInt8) -> Bool) -> String {
        let start = index
        while let byte = peek, condition(byte) { index += 1 }
        return Self.text(bytes[start..<index])
    }

    /// `name=value` or `name="value"`, the name lowercased; stops before the next `;`.
    mutating func parameter() throws(HeaderParameters.ParseError) -> (String, String) {
        let name = take { $0 != Self.equals && $0 != Self.semicolon }
        guard skip(Self.equals) else { throw .missingEquals(near: String(name.prefix(40))) }
        guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenCharacter) else {
            throw .invalidName(String(name.prefix(40)))
        }
        let lowercased = name.lowercased()
        skipSpaces()
        guard skip(Self.quote) else {
            let value = take { $0 != Self.semicolon }
            guard !value.utf8.contains(Self.quote) else { throw .quoteInsideToken(parameter: lowercased) }
            return (lowercased, value)
        }
        let value = try quotedRest(of: lowercased)
        skipSpaces()
        guard isAtEnd || peek == Self.semicolon else { throw .textAfterQuotedValue(parameter: lowercased) }
        return (lowercased, value)
    }

    /// The rest of a quoted string, its opening quote already read, through its closing quote.
    private mutating func quotedRest(of name: String) throws(HeaderParameters.ParseError) -> String {
        var value: [UInt8] = []
        while let byte = peek {
            index += 1
            if byte == Self.quote { return String(decoding: value, as: UTF8.self) }
            if byte == Self.backslash, let next = peek, next == Self.quote || next == Self.backslash {
                value.append(next)
                index += 1
            } else {
                value.append(byte)
            }
        }
        throw .unclosedQuote(parameter: name)
    }

    private static func text(_ slice: ArraySlice<UInt8>) -> String {
        var slice = slice
        while let first = slice.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { slice = slice.dropFirst() }
        while let last = slice.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { slice = slice.dropLast() }
        return String(decoding: slice, as: UTF8.self)
    }

    /// RFC 9110 tchar: letters, digits and ``!#$%&'*+-.^_`|~``.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "!"), UInt8(ascii: "#")...UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"),
             UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
        default: false
        }
    }
}
