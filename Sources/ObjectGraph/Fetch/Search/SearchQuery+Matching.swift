extension SearchQuery {
    /// Whether an object whose searchable attributes hold `texts` matches, by FTS5's rules:
    /// every phrase occurs in one of the texts, its tokens in a row, the last one as a prefix
    /// when the phrase says so. Tokens compare folded, byte for byte, as in the index.
    func matches(_ texts: [String]) -> Bool {
        guard !phrases.isEmpty else { return false }
        let columns = texts.map(SearchTokenizer.foldedTokens(in:))
        return phrases.allSatisfy { phrase in columns.contains(where: phrase.occurs(in:)) }
    }
}

extension SearchQuery.Phrase {
    /// Whether the phrase's tokens occur in a row among `tokens`.
    func occurs(in tokens: [[UInt8]]) -> Bool {
        let count = folded.count
        guard count > 0, tokens.count >= count else { return false }
        return (0...(tokens.count - count)).contains { start in
            folded.indices.allSatisfy { k in
                let token = tokens[start + k]
                return isPrefix && k == count - 1 ? token.starts(with: folded[k]) : token == folded[k]
            }
        }
    }
}
