#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CCmark
import Foundation

/// Renders CommonMark to HTML with libcmark, giving each heading an `id` anchor.
///
/// Safe by default: raw HTML in the document is replaced by a comment and links or images with
/// `javascript:`, `vbscript:`, `file:` or `data:` (other than images) URLs get an empty target,
/// so user-written text cannot inject script. Only for documents you wrote yourself, pass
/// `options: .trusted` to keep raw HTML.
///
/// ```swift
/// let html = Markdown().html(from: "# Getting started\n\nSee [the list](/clients).")
/// // <h1 id="getting-started">Getting started</h1>\n<p>See <a href="/clients">the list</a>.</p>
/// ```
public struct Markdown: Sendable {
    /// Rendering options.
    public struct Options: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// Keeps raw HTML and unsafe links: only for trusted documents (CMARK_OPT_UNSAFE).
        public static let trusted = Options(rawValue: CMARK_OPT_UNSAFE)
        /// Curly quotes, en and em dashes, ellipses (CMARK_OPT_SMART).
        public static let smartPunctuation = Options(rawValue: CMARK_OPT_SMART)
        /// Line breaks inside paragraphs become `<br />` (CMARK_OPT_HARDBREAKS).
        public static let hardBreaks = Options(rawValue: CMARK_OPT_HARDBREAKS)
    }

    public let options: Options
    /// Whether headings get an `id` made from their text (`## Totals per currency` →
    /// `id="totals-per-currency"`; repeats get `-1`, `-2`).
    public let headingAnchors: Bool
    /// Anchors the page around the document already uses (`main`, say): a heading that would
    /// take one gets a suffix instead, so no `id` appears twice on the page.
    public let reservedAnchors: Set<String>

    public init(options: Options = [], headingAnchors: Bool = true, reservedAnchors: Set<String> = []) {
        self.options = options
        self.headingAnchors = headingAnchors
        self.reservedAnchors = reservedAnchors
    }

    /// The HTML for `markdown`.
    public func html(from markdown: String) -> String {
        let flags = options.rawValue | CMARK_OPT_VALIDATE_UTF8
        // The length is given, so a NUL inside the text does not end the document early
        // (cmark reads it as U+FFFD, as CommonMark asks).
        var text = markdown
        let document = text.withUTF8 { bytes -> OpaquePointer? in
            guard let base = bytes.baseAddress else { return cmark_parse_document("", 0, flags) }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                cmark_parse_document($0, bytes.count, flags)
            }
        }
        guard let document else { return "" }
        defer { cmark_node_free(document) }
        if headingAnchors { addAnchors(to: document) }
        guard let rendered = cmark_render_html(document, flags) else { return "" }
        defer { free(rendered) }
        return String(cString: rendered)
    }

    /// Replaces each heading by a custom block holding one custom inline that prints
    /// `<hN id="slug">` and `</hN>` around the heading's own inlines, so the inline content is
    /// still rendered (and escaped) by cmark. The block prints nothing itself; it only gives
    /// the tags a line of their own, as cmark gives a heading. Nothing is rewritten in the
    /// HTML afterwards: the cost is one pass over the document, whatever the number of headings.
    private func addAnchors(to document: OpaquePointer) {
        var headings: [OpaquePointer] = []
        guard let iterator = cmark_iter_new(document) else { return }
        while case let event = cmark_iter_next(iterator), event != CMARK_EVENT_DONE {
            if event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator),
               cmark_node_get_type(node) == CMARK_NODE_HEADING {
                headings.append(node)
            }
        }
        cmark_iter_free(iterator)

        var slugs = HeadingSlugs(reserved: reservedAnchors)
        for heading in headings {
            let level = cmark_node_get_heading_level(heading)
            let slug = slugs.unique(Self.slug(Self.text(of: heading)))
            guard let block = cmark_node_new(CMARK_NODE_CUSTOM_BLOCK) else { continue }
            guard let tags = cmark_node_new(CMARK_NODE_CUSTOM_INLINE), cmark_node_append_child(block, tags) == 1 else {
                cmark_node_free(block)
                continue
            }
            cmark_node_set_on_enter(block, "")
            cmark_node_set_on_exit(block, "")
            cmark_node_set_on_enter(tags, "<h\(level) id=\"\(slug)\">")
            cmark_node_set_on_exit(tags, "</h\(level)>")
            // The heading's inlines move into the custom inline, so cmark still renders and escapes them.
            var moved = true
            while moved, let child = cmark_node_first_child(heading) {
                moved = cmark_node_append_child(tags, child) == 1
            }
            guard moved, cmark_node_replace(heading, block) == 1 else {
                cmark_node_free(block)
                continue
            }
            cmark_node_free(heading)
        }
    }

    /// The plain text of a node's inline content (text and code spans).
    private static func text(of node: OpaquePointer) -> String {
        var text = ""
        guard let iterator = cmark_iter_new(node) else { return text }
        defer { cmark_iter_free(iterator) }
        while case let event = cmark_iter_next(iterator), event != CMARK_EVENT_DONE {
            guard event == CMARK_EVENT_ENTER, let current = cmark_iter_get_node(iterator) else { continue }
            let type = cmark_node_get_type(current)
            if type == CMARK_NODE_TEXT || type == CMARK_NODE_CODE, let literal = cmark_node_get_literal(current) {
                text += String(cString: literal)
            }
        }
        return text
    }

    /// Lowercase letters and digits, other runs become one hyphen: safe inside an attribute.
    static func slug(_ text: String) -> String {
        var slug = ""
        var pendingHyphen = false
        for character in text.lowercased() {
            if character.isLetter || character.isNumber {
                if pendingHyphen && !slug.isEmpty { slug += "-" }
                pendingHyphen = false
                slug.append(character)
            } else {
                pendingHyphen = true
            }
        }
        return slug
    }
}
