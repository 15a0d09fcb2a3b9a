/// Words to find in an entity's searchable attributes (full-text search), read from what a
/// person typed.
///
/// ```swift
/// var request = FetchRequest<Invoice>(predicate: #Predicate { $0.status == "sent" }, fetchLimit: 20)
/// request.searchQuery = SearchQuery("acme inv*")
/// let invoices = try context.fetch(request)      // best match first
/// ```
///
/// Typed text is never FTS5 query syntax, so no input can make a search fail: the text is
/// split into words at white space, and each word becomes a quoted phrase of its tokens, split
/// and folded as the index does (``SearchTokenizer``): `INV-2024-7` finds those three tokens
/// in a row, `café` finds "Cafe", and quotes, `-`, `AND`, `NEAR(`, `:` or `^` are
/// punctuation or plain words. A word matches as a prefix when it ends with `*` (`inv*`), or
/// as ``PrefixMatching`` says. An object matches when every word occurs in one of its
/// searchable attributes. Words without a letter or digit are left out; a query left with
/// none (empty text, only punctuation) matches nothing. At most ``maximumTokenCount`` tokens
/// are kept; the words after them are left out.
public struct SearchQuery: Sendable, Hashable, CustomStringConvertible {
    /// Which words match as prefixes ("inv" finding "invoice").
    public enum PrefixMatching: Sendable, Hashable {
        /// Only words typed with a trailing `*`.
        case starredWords
        /// The last word too, unless the text ends with white space: search as you type.
        case lastWord
        /// Every word.
        case everyWord
    }

    /// One word of the query: its tokens in order, and whether the last matches as a prefix.
    public struct Phrase: Sendable, Hashable {
        /// The tokens as typed (unfolded), in order.
        public let tokens: [String]
        /// Whether the last token matches every token it begins.
        public let isPrefix: Bool
        /// The tokens folded as the index stores them.
        let folded: [[UInt8]]
    }

    /// The most tokens a query keeps, so that pasted pages cannot make a search slow.
    public static let maximumTokenCount = 64

    /// The words that count, in the order typed.
    public let phrases: [Phrase]

    /// Reads `text` as a person typed it.
    public init(_ text: String, prefixMatching: PrefixMatching = .starredWords) {
        let words = text.unicodeScalars.split(whereSeparator: \.properties.isWhitespace)
        let endsWord = text.unicodeScalars.last.map { !$0.properties.isWhitespace } ?? false
        var phrases: [Phrase] = []
        var budget = Self.maximumTokenCount
        for (position, word) in words.enumerated() where budget > 0 {
            let text = Substring(word)
            let tokens = SearchTokenizer.tokens(in: text, limit: budget)
            guard !tokens.isEmpty else { continue }
            budget -= tokens.count
            let isLast = position == words.count - 1
            let starred = word.last == "*"
            let isPrefix: Bool
            switch prefixMatching {
            case .starredWords: isPrefix = starred
            case .lastWord: isPrefix = starred || (isLast && endsWord)
            case .everyWord: isPrefix = true
            }
            phrases.append(Phrase(tokens: tokens.map { String($0.text) }, isPrefix: isPrefix, folded: tokens.map(\.folded)))
        }
        self.phrases = phrases
    }

    /// Whether no word counts: such a query matches nothing.
    public var isEmpty: Bool { phrases.isEmpty }

    /// The phrases as FTS5 reads them: `"acme" "inv"*`.
    public var description: String { matchExpression }

    /// The right side of `MATCH`. Tokens hold only letters, digits and marks (never a quote,
    /// a control character or an operator), and are quoted all the same.
    var matchExpression: String {
        phrases.map { phrase in
            "\"" + phrase.tokens.joined(separator: " ").replacingOccurrences(of: "\"", with: "\"\"") + "\""
                + (phrase.isPrefix ? "*" : "")
        }.joined(separator: " ")
    }
}
