/// One cell of an exported CSV file: quoted when it must be (RFC 4180), and never read by a
/// spreadsheet as a formula.
///
/// A cell that starts with `=`, `+`, `-`, `@` (or their full-width forms, which some
/// spreadsheets read the same), a tab or a carriage return gets a leading `'`, unless the
/// whole cell is a plain number such as `-12.50`. The check is on the whole cell:
/// `-9+cmd|' /C calc'!A0` starts like a number, yet is a formula.
///
/// The import undoes it (``decode(_:)``): a value that itself begins with `'` followed by
/// one of those characters or another `'` gets one more `'`, so every value reads back
/// exactly as it was written.
///
/// ```swift
/// CSVCell.encode("=HYPERLINK(\"x\")")   // "'=HYPERLINK(""x"")" quoted
/// CSVCell.encode("-12.50")              // -12.50
/// CSVCell.decode("'=1+2")               // =1+2
/// ```
enum CSVCell {
    /// `text` as a CSV cell.
    static func encode(_ text: String) -> String {
        var value = text
        if let first = value.unicodeScalars.first, formulaStarts.contains(first), !isPlainNumber(value) {
            value = "'" + value
        } else if isProtected(value) {
            value = "'" + value
        }
        // Scalars, not Characters: "\r\n" is one Character, equal to neither "\r" nor "\n", and
        // a quote followed by a combining mark is one Character that replacingOccurrences(of:
        // "\"") leaves alone, so that quote would end the cell early.
        guard value.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else {
            return value
        }
        var quoted = String.UnicodeScalarView(["\""])
        for scalar in value.unicodeScalars {
            if scalar == "\"" { quoted.append("\"") }
            quoted.append(scalar)
        }
        quoted.append("\"")
        return String(quoted)
    }

    /// A cell's value as an exported file wrote it, its protection removed: the text of a
    /// field the CSV parser has already unquoted.
    static func decode(_ field: String) -> String {
        isProtected(field) ? String(field.unicodeScalars.dropFirst()) : field
    }

    /// Whether `text` begins with the `'` this type adds: followed by a formula start or
    /// by another `'`.
    private static func isProtected(_ text: String) -> Bool {
        var scalars = text.unicodeScalars.makeIterator()
        guard scalars.next() == "'", let second = scalars.next() else { return false }
        return second == "'" || formulaStarts.contains(second)
    }

    /// Characters a spreadsheet may start a formula (or a command, DDE) with.
    private static let formulaStarts: Set<Unicode.Scalar> = [
        "=", "+", "-", "@", "\t", "\r", "\u{FF1D}", "\u{FF0B}", "\u{FF0D}", "\u{FF20}",
    ]

    /// An optional sign, digits, and optionally a point and more digits: nothing else.
    static func isPlainNumber(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        let whole = bytes.prefix(while: isDigit)
        guard !whole.isEmpty else { return false }
        let rest = bytes.dropFirst(whole.count)
        if rest.isEmpty { return true }
        guard rest.first == UInt8(ascii: ".") else { return false }
        let fraction = rest.dropFirst()
        return !fraction.isEmpty && fraction.allSatisfy(isDigit)
    }
}
