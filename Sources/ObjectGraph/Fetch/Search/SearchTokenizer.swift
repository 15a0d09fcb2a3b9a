import Foundation

/// SQLite FTS5's `unicode61` tokenizer with `remove_diacritics 2`, the one searchable
/// attributes are indexed with, redone in Swift: queries are split into the tokens FTS5 will
/// see, and unsaved objects are matched in memory by the same rules.
///
/// The rules, as SQLite 3.40 applies them (checked against the real tokenizer for every code
/// point of Unicode once, and for the basic plane and the emoji blocks by
/// `SearchTokenizerTests`):
/// - A token is a run of token characters: letters, numbers and private-use characters
///   (categories L*, N*, Co), unassigned code points, the 25 combining diacritics SQLite
///   knows (U+0300 acute, U+0308 diaeresis, ...), and every character Unicode assigned after
///   6.1, the version SQLite's tables stop at (most emoji, for instance). Everything else
///   (spaces, punctuation, symbols, other marks) separates tokens.
/// - Tokens are case-folded one code point at a time (simple folding: "µ" → "μ", "ſ" → "s",
///   but "ß" stays "ß"), and the diacritics of Latin letters are removed ("é" → "e",
///   "ǖ" → "u"); "æ", "ø", "ł", "đ" have no diacritic to remove and stay. Other scripts keep
///   their marks (Greek "ά" stays "ά").
/// - Tokens that fold to nothing (lone combining marks) are dropped; tokens are cut after
///   32,768 bytes, as FTS5 stores them.
///
/// The exceptions below are characters whose category changed since Unicode 6.1 (Swift
/// knows the newer data, SQLite the older), and two noncharacters.
enum SearchTokenizer {
    /// FTS5 keeps at most this many bytes of a token (`FTS5_MAX_TOKEN_SIZE`).
    static let maximumTokenBytes = 32_768

    /// A token: where it is in the text, and its folded UTF-8 bytes (what FTS5 indexes).
    struct Token: Equatable {
        let text: Substring
        let folded: [UInt8]
    }

    /// The tokens of `text`, in order; at most `limit` of them.
    static func tokens(in text: Substring, limit: Int = .max) -> [Token] {
        var tokens: [Token] = []
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        while index < scalars.endIndex && tokens.count < limit {
            guard isTokenCharacter(scalars[index]) else {
                index = scalars.index(after: index)
                continue
            }
            let start = index
            var folded = String.UnicodeScalarView()
            while index < scalars.endIndex, isTokenCharacter(scalars[index]) {
                if let scalar = fold(scalars[index]) { folded.append(scalar) }
                index = scalars.index(after: index)
            }
            var bytes = Array(String(folded).utf8)
            guard !bytes.isEmpty else { continue }
            if bytes.count > maximumTokenBytes { bytes.removeSubrange(maximumTokenBytes...) }
            tokens.append(Token(text: Substring(scalars[start..<index]), folded: bytes))
        }
        return tokens
    }

    /// The folded tokens of `text`, as FTS5 indexes them.
    static func foldedTokens(in text: String) -> [[UInt8]] {
        tokens(in: text[...]).map(\.folded)
    }

    // MARK: Classes of characters

    static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x80 {
            return (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
        }
        if isRemovableDiacritic(scalar) || tokenCharactersForSQLite.contains(value) { return true }
        if separatorsForSQLite.contains(value) { return false }
        if !isKnownToSQLite(scalar) { return true }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber, .privateUse, .unassigned:
            return true
        default:
            return false
        }
    }

    /// Combining marks that are token characters and that folding removes (SQLite's
    /// `sqlite3Fts5UnicodeIsdiacritic`).
    static func isRemovableDiacritic(_ scalar: Unicode.Scalar) -> Bool {
        (0x300...0x331).contains(scalar.value) && removableDiacritics.contains(scalar.value)
    }

    private static let removableDiacritics: Set<UInt32> = [
        0x300, 0x301, 0x302, 0x303, 0x304, 0x306, 0x307, 0x308, 0x309, 0x30A, 0x30B, 0x30C, 0x30F,
        0x311, 0x31B, 0x323, 0x324, 0x325, 0x326, 0x327, 0x328, 0x32D, 0x32E, 0x330, 0x331,
    ]
    /// Letters in Unicode 6.1, nonspacing marks today (Mongolian ali gali baluda).
    private static let tokenCharactersForSQLite: Set<UInt32> = [0x1885, 0x1886]
    /// Spacing marks in Unicode 6.1, letters today (New Tai Lue vowel signs, Vedic signs);
    /// and the noncharacters U+FFFE and U+FFFF, which SQLite's table ends before.
    private static let separatorsForSQLite: Set<UInt32> =
        Set(0x19B0...0x19C0).union([0x19C8, 0x19C9, 0x1CF2, 0x1CF3, 0xFFFE, 0xFFFF])

    /// Whether SQLite's tables (Unicode 6.1) know the character; it treats the others as
    /// letters and leaves them as they are.
    private static func isKnownToSQLite(_ scalar: Unicode.Scalar) -> Bool {
        guard let age = scalar.properties.age else { return false }
        return age.major < 6 || (age.major == 6 && age.minor <= 1)
    }

    // MARK: Folding

    /// A token character as FTS5 stores it; nil for a diacritic that is removed.
    static func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar? {
        let value = scalar.value
        if value < 0x80 {
            return (0x41...0x5A).contains(value) ? Unicode.Scalar(UInt8(value + 0x20)) : scalar
        }
        if isRemovableDiacritic(scalar) { return nil }
        // Dotless i has no simple case folding; upper-casing it would make it "i".
        guard isKnownToSQLite(scalar), value != 0x131 else { return scalar }
        // Simple case folding, from Swift's case mappings: a character's upper case, lowered,
        // is its folded form ("µ" → "Μ" → "μ"); İ lowers to "i" plus a dot, of which SQLite
        // keeps the "i".
        let upper = scalar.properties.uppercaseMapping.unicodeScalars
        let source = upper.count == 1 ? upper[upper.startIndex] : scalar
        guard let lower = source.properties.lowercaseMapping.unicodeScalars.first, isKnownToSQLite(lower) else {
            return scalar
        }
        return removingDiacritic(lower)
    }

    /// The base letter of a Latin letter with diacritics ("é" → "e"); other characters as
    /// they are. SQLite's table leaves out "ǡ" (a with dot above and macron).
    private static func removingDiacritic(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        let value = scalar.value
        guard (0xC0...0x24F).contains(value) || (0x1E00...0x1EFF).contains(value), value != 0x1E1,
              let base = String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars.first,
              base.isASCII else { return scalar }
        return base
    }
}
