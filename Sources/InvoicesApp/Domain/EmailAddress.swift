/// The email address rules of clients: what the model accepts, and the normal form input is
/// stored in.
public enum EmailAddress {
    /// Characters an address may not hold outside quotes.
    private static let forbidden = Set("\"(),:;<>[\\]".unicodeScalars)

    /// Whether `text` looks like a deliverable address: one `@`, a local part and a domain
    /// of dot-separated labels with at least one dot, no white space or control characters,
    /// at most 254 characters. (Full RFC 5322 syntax, quoted local parts and all, is not
    /// what people type into an invoicing tool.)
    public static func isValid(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count >= 3, scalars.count <= 254,
              let at = scalars.firstIndex(of: "@"), scalars.lastIndex(of: "@") == at,
              at > 0, at < scalars.count - 1 else { return false }
        for s in scalars where s.isWhiteSpace || s.value < 0x20 || s.value == 0x7F || Self.forbidden.contains(s) {
            return false
        }
        let local = scalars[..<at], domain = scalars[(at + 1)...]
        if local.first == "." || local.last == "." || local.count > 64 { return false }
        let labels = String(String.UnicodeScalarView(domain)).split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        for label in labels {
            if label.isEmpty || label.hasPrefix("-") || label.hasSuffix("-") { return false }
        }
        return true
    }

    /// Trimmed and lower-cased; nil for blank input (a client without email).
    public static func normalized(_ text: String?) -> String? {
        guard let trimmed = text?.trimmingWhitespace(), !trimmed.isEmpty else { return nil }
        return trimmed.lowercased()
    }
}
