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
        // The scalars in place: an import checks an address per row.
        let scalars = text.unicodeScalars
        let count = scalars.count
        guard count >= 3, count <= 254, let at = scalars.firstIndex(of: "@"), scalars.lastIndex(of: "@") == at,
              at > scalars.startIndex, scalars.index(after: at) < scalars.endIndex else { return false }
        for s in scalars where s.isWhiteSpace || s.value < 0x20 || s.value == 0x7F || forbidden.contains(s) {
            return false
        }
        let local = scalars[..<at], domain = scalars[scalars.index(after: at)...]
        if local.first == "." || local.last == "." || local.count > 64 { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        return !labels.contains { $0.isEmpty || $0.first == "-" || $0.last == "-" }
    }

    /// Trimmed and lower-cased; nil for blank input (a client without email).
    public static func normalized(_ text: String?) -> String? {
        guard let trimmed = text?.trimmingWhitespace(), !trimmed.isEmpty else { return nil }
        return trimmed.lowercased()
    }
}
