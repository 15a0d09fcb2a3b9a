import Foundation

/// A value someone typed or uploaded, quoted in a message about it: short enough to read,
/// and unable to change what shows it.
///
/// A value longer than ``limit`` characters is cut with an ellipsis and followed by its
/// length, so a 20 MB cell makes a one-line reason, not a 20 MB report. Control characters
/// (which could move a terminal's cursor when `invoices import` prints the report) show as
/// U+FFFD.
///
/// ```swift
/// EchoedInput.quoted("12,50")                                  // "12,50" in quotes
/// EchoedInput.quoted(String(repeating: "9", count: 20_000_000))
/// // "99999…99" in quotes, then " (20,000,000 characters)"
/// ```
enum EchoedInput {
    /// The most characters shown of a value.
    static let limit = 60

    /// `"value"`, or `"the first characters…" (N characters)` for a long one.
    static func quoted(_ text: some StringProtocol) -> String {
        let (shown, length) = shortened(text)
        return "\"\(shown)\"" + (length.map { " (\($0) characters)" } ?? "")
    }

    /// The value without quotes, shortened the same way (`the first characters… (N characters)`).
    static func plain(_ text: some StringProtocol) -> String {
        let (shown, length) = shortened(text)
        return shown + (length.map { " (\($0) characters)" } ?? "")
    }

    /// The text to show, and the full length, formatted, when the text was cut.
    private static func shortened(_ text: some StringProtocol) -> (String, String?) {
        let shown = String(text.prefix(limit).map(visible))
        // Counting a 20 MB value is one pass of the standard library's fast path.
        let count = text.count
        guard count > limit else { return (shown, nil) }
        return (shown + "…", MoneyFormat.grouped(Decimal(count), decimals: 0))
    }

    private static func visible(_ character: Character) -> Character {
        character.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) } ? "\u{FFFD}" : character
    }
}
