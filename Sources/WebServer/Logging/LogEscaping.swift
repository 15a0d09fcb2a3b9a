/// Text made safe for one log line: nothing a visitor sends can end the line, start a forged
/// one, or drive a terminal.
///
/// Backslash, C0 and C1 control characters, DEL and the Unicode line and paragraph separators
/// are written as escapes: `\\`, `\n`, `\r`, `\t`, and `\u{1B}` for the others. The escaping
/// can be read back unambiguously, since a backslash in the text is itself escaped.
///
/// ```swift
/// LogEscaping.escape("/\nforged 200")   // "/\\nforged 200": one line
/// ```
public enum LogEscaping {
    /// `text` with every character that could break or forge a log line escaped.
    public static func escape(_ text: String) -> String {
        // Most paths and messages are plain printable ASCII: returned as they are.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") }) { return text }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case _ where needsEscape(scalar):
                escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default:
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// C0 controls, DEL, C1 controls (U+0085 is a line break to some readers), and U+2028 and
    /// U+2029, which some log viewers and JSON consumers treat as line ends.
    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: true
        default: false
        }
    }
}
