import Mustache

extension Markdown {
    /// `text` as CommonMark that renders as exactly this text, never as markup: for values
    /// from the data (names, notes) placed into a markdown document.
    ///
    /// Characters that have a meaning anywhere in a line (`\` `` ` `` `*` `_` `[` `]` `<` `>`
    /// `&` `!` `|` `~` `{` `}`) get a backslash; so do those that only mean something where a
    /// line starts (`-` `+` `#` `=`, and `1.` or `1)` before a space) when the value starts with
    /// them. Line breaks become ` ⏎ `, so a value stays inside its line: it can never start a
    /// line after its own beginning, and cannot open a block (a heading, a list, a fence).
    /// Spaces and tabs that start the value are left out: four of them, or a tab, would open
    /// a code block, and HTML shows none of them anyway.
    ///
    /// ```swift
    /// Markdown.escape("<b>Acme</b> *Corp*")   // \<b\>Acme\</b\> \*Corp\*
    /// Markdown.escape("- 1. INV-7")           // \- 1. INV-7
    /// ```
    public static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        var atStart = true          // only spaces so far
        var leadingDigits = false   // only spaces, then digits, so far
        var previousWasCarriageReturn = false
        let scalars = Array(text.unicodeScalars)
        for (index, character) in scalars.enumerated() {
            defer { previousWasCarriageReturn = character == "\r" }
            switch character {
            case "\r", "\n":
                if !(character == "\n" && previousWasCarriageReturn) { result += " \u{23CE} " }
                atStart = false
                leadingDigits = false
                continue
            case " " where atStart, "\t" where atStart:
                continue
            case "0"..."9":
                leadingDigits = atStart || leadingDigits
                atStart = false
                result.unicodeScalars.append(character)
                continue
            case ".", ")":
                // `1.` or `1)` opens an ordered list only when whitespace or the line's end follows
                // (a line break too: it becomes " ⏎ ", which starts with a space). cmark counts
                // a form feed and a vertical tab as whitespace there.
                if leadingDigits && (index + 1 == scalars.count || listMarkerEnds.contains(scalars[index + 1])) {
                    result += "\\"
                }
            default:
                if escapedAnywhere.contains(character) || (atStart && escapedAtLineStart.contains(character)) {
                    result += "\\"
                }
            }
            result.unicodeScalars.append(character)
            atStart = false
            leadingDigits = false
        }
        return result
    }

    /// ASCII punctuation with a meaning inside a line.
    private static let escapedAnywhere: Set<Unicode.Scalar> = [
        "\\", "`", "*", "_", "[", "]", "<", ">", "&", "!", "|", "~", "{", "}",
    ]

    /// What may follow `1.` for it to open an ordered list.
    private static let listMarkerEnds: Set<Unicode.Scalar> = [" ", "\t", "\r", "\n", "\u{0B}", "\u{0C}"]

    /// ASCII punctuation with a meaning only where a line starts.
    private static let escapedAtLineStart: Set<Unicode.Scalar> = ["-", "+", "#", "="]
}

/// The `MARKDOWN` content type of templates: `{{value}}` is escaped for CommonMark with
/// ``Markdown/escape(_:)`` instead of for HTML. A template declares it on its first line:
///
/// ```mustache
/// {{% CONTENT_TYPE: MARKDOWN}}
/// # {{title}}
/// ```
/// Render such a template with `layout: nil`, then through ``Markdown/html(from:)`` (safe
/// mode), and place the HTML in a page.
public struct MarkdownContentType: MustacheContentType {
    public init() {}

    public func escapeText(_ text: String) -> String { Markdown.escape(text) }

    /// The name templates use in the pragma.
    public static let name = "MARKDOWN"

    /// Registers the content type with swift-mustache, once: templates that declare it do
    /// not parse before this ran (``TemplateRenderer`` calls it before loading).
    public static func register() { _ = registration }

    private static let registration: Void = {
        MustacheContentTypes.register(MarkdownContentType(), named: name)
    }()
}
