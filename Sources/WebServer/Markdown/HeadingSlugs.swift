/// The heading anchors of one document, each unique: the first `totals` stays `totals`,
/// the next ones become `totals-1`, `totals-2`, skipping any a heading already took (a
/// heading "Totals 1" is `totals-1` too).
///
/// Each base remembers its next suffix and every anchor is taken once, so a document with
/// thousands of identical headings costs time in proportion to their number, not its square.
struct HeadingSlugs {
    private var taken: Set<String>
    private var nextSuffix: [String: Int] = [:]

    /// - Parameter reserved: anchors no heading may take.
    init(reserved: Set<String> = []) {
        taken = reserved
    }

    /// An anchor for a heading whose text gives `slug`; `section` when it gives nothing.
    mutating func unique(_ slug: String) -> String {
        let base = slug.isEmpty ? "section" : slug
        if taken.insert(base).inserted { return base }
        var suffix = nextSuffix[base, default: 1]
        while !taken.insert("\(base)-\(suffix)").inserted { suffix += 1 }
        nextSuffix[base] = suffix + 1
        return "\(base)-\(suffix)"
    }
}
