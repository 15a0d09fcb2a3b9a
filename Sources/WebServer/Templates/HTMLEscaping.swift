import Mustache

/// HTML escaping for `{{value}}`, the same characters as swift-mustache's own (`<`, `>`, `&`,
/// `"`, `'`), read as UTF-8 bytes.
///
/// Why not the library's: it walks the text by `Character` and looks each one up in a
/// dictionary, which was 5% of the server's CPU time on list pages (a page of 50 invoices has
/// 550 values). Here text with nothing to escape, nearly all of it, is returned as it is
/// after one pass over its bytes. (Each of the five is a single byte in UTF-8 and never part
/// of another character's encoding, so escaping bytes escapes exactly those characters; one
/// followed by a combining mark is escaped too, where the library would leave it.)
public struct HTMLContentType: MustacheContentType {
    public init() {}

    public func escapeText(_ text: String) -> String { Self.escape(text) }

    /// The name ``TemplateRenderer`` declares at the top of every template.
    public static let name = "HTML_UTF8"

    /// The declaration: a template that names another content type after it (Markdown) uses
    /// that one from there on.
    static let pragma = "{{% CONTENT_TYPE: \(name)}}\n"

    /// Registers the content type with swift-mustache, once.
    public static func register() { _ = registration }

    private static let registration: Void = {
        MustacheContentTypes.register(HTMLContentType(), named: name)
    }()

    /// `text` with the five characters replaced by their entities.
    public static func escape(_ text: String) -> String {
        let utf8 = text.utf8
        guard utf8.contains(where: needsEscape) else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count + 16)
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "<"): bytes += "&lt;".utf8
            case UInt8(ascii: ">"): bytes += "&gt;".utf8
            case UInt8(ascii: "&"): bytes += "&amp;".utf8
            case UInt8(ascii: "\""): bytes += "&quot;".utf8
            case UInt8(ascii: "'"): bytes += "&#39;".utf8
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "&")
            || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }
}
