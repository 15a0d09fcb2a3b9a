/// A cookie to set on the client with `Set-Cookie`.
///
/// ```swift
/// var response = Response.redirect(to: "/")
/// response.setCookie(Cookie(name: "sid", value: token, maxAge: 3600))   // HttpOnly, SameSite=Lax, Path=/
/// ```
public struct Cookie: Sendable, Hashable {
    /// When the browser sends the cookie along with cross-site requests.
    public enum SameSite: String, Sendable {
        case strict = "Strict", lax = "Lax", none = "None"
    }

    public var name: String
    /// The value, sent as is: use token characters (letters, digits, `-._~`), or encode it first.
    public var value: String
    public var path: String?
    public var domain: String?
    /// Lifetime in seconds; 0 or less deletes the cookie.
    public var maxAge: Int?
    /// Expiry as seconds since 1970 (prefer `maxAge`).
    public var expires: Int?
    public var secure: Bool
    public var httpOnly: Bool
    public var sameSite: SameSite?

    /// Creates a cookie; the defaults suit a session cookie (`HttpOnly`, `SameSite=Lax`, `Path=/`).
    public init(name: String, value: String, path: String? = "/", domain: String? = nil,
                maxAge: Int? = nil, expires: Int? = nil, secure: Bool = false,
                httpOnly: Bool = true, sameSite: SameSite? = .lax) {
        self.name = name
        self.value = value
        self.path = path
        self.domain = domain
        self.maxAge = maxAge
        self.expires = expires
        self.secure = secure
        self.httpOnly = httpOnly
        self.sameSite = sameSite
    }

    /// A cookie that deletes `name` on the client.
    public static func expired(name: String, path: String? = "/") -> Cookie {
        Cookie(name: name, value: "", path: path, maxAge: 0, expires: 0)
    }

    /// The `Set-Cookie` header value. Characters that could split the header or add an attribute
    /// (control characters and `;`) are dropped from every part.
    public var headerValue: String {
        var parts = ["\(Self.clean(name))=\(Self.clean(value))"]
        if let path { parts.append("Path=\(Self.clean(path))") }
        if let domain { parts.append("Domain=\(Self.clean(domain))") }
        if let maxAge { parts.append("Max-Age=\(maxAge)") }
        if let expires { parts.append("Expires=\(HTTPDate.string(fromEpochSeconds: expires))") }
        if secure { parts.append("Secure") }
        if httpOnly { parts.append("HttpOnly") }
        if let sameSite { parts.append("SameSite=\(sameSite.rawValue)") }
        return parts.joined(separator: "; ")
    }

    private static func clean(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F && $0 != ";" })
    }

    /// Parses a `Cookie` request header (`a=1; b=2`) into names and values; the first of a repeated name wins.
    ///
    /// Read as bytes: only the ASCII `;` and `=` separate, as for browsers and every other
    /// server. (As a String, Swift's `split(separator: ";")` also splits at U+037E, GREEK
    /// QUESTION MARK, which is canonically equivalent to `;`: `a=x\u{37E}sid=evil` became a
    /// second cookie `sid`.)
    static func parse(header: String, into cookies: inout [String: String]) {
        for piece in header.utf8.split(separator: UInt8(ascii: ";")) {
            guard let equals = piece.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = trimmed(piece[..<equals])
            var value = trimmed(piece[piece.index(after: equals)...])
            if value.count >= 2, value.first == UInt8(ascii: "\""), value.last == UInt8(ascii: "\"") {
                value = value.dropFirst().dropLast()
            }
            let key = String(decoding: name, as: UTF8.self)
            guard !key.isEmpty, cookies[key] == nil else { continue }
            cookies[key] = String(decoding: value, as: UTF8.self)
        }
    }

    /// `bytes` without the spaces and tabs around them.
    private static func trimmed(_ bytes: Substring.UTF8View.SubSequence) -> Substring.UTF8View.SubSequence {
        var bytes = bytes
        while let first = bytes.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { bytes = bytes.dropLast() }
        return bytes
    }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
