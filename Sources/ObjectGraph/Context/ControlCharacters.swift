/// Finds the control characters that `.singleLine` and `.multiLine` text refuses.
///
/// Refused everywhere: C0 controls (U+0000–U+001F) but those line breaks allow, DEL
/// (U+007F) and C1 controls (U+0080–U+009F, NEL included). One line also refuses tab,
/// line feed, carriage return and the Unicode line and paragraph separators (U+2028,
/// U+2029); text that may span lines keeps those.
enum ControlCharacters {
    /// The first refused character of `text`, or nil when there is none.
    static func first(in text: String, allowingLineBreaks: Bool) -> Unicode.Scalar? {
        // Validation runs for every saved object: printable ASCII, nearly every value, is one
        // pass over the bytes.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F && $0 < 0x80 }) { return nil }
        return text.unicodeScalars.first { isRefused($0, allowingLineBreaks: allowingLineBreaks) }
    }

    /// `U+0000`: how a message names a character a reader cannot see.
    static func name(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    private static func isRefused(_ scalar: Unicode.Scalar, allowingLineBreaks: Bool) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D, 0x2028, 0x2029: !allowingLineBreaks
        case 0x00...0x1F, 0x7F...0x9F: true
        default: false
        }
    }
}
