import FuzzSupport
@testable import WebServer

/// `Markdown.escape`: a value escaped and rendered at the start of a line must come out as one
/// paragraph of text (or nothing, for blank text), never as markup: no heading, list, code
/// block, quote, link, emphasis or HTML.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMarkdownEscape(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzInput(data, size), as: UTF8.self)
    let escaped = Markdown.escape(text)
    let html = Markdown(headingAnchors: false).html(from: escaped + "\n")
    guard !html.isEmpty else { return 0 }
    // Bytes, not Characters: a prepended mark (U+0604) makes one Character of itself and "<".
    let bytes = Array(html.utf8), opening = Array("<p>".utf8), closing = Array("</p>\n".utf8)
    require(bytes.starts(with: opening) && bytes.reversed().starts(with: closing.reversed()),
            "\(text.debugDescription) renders as \(html.debugDescription)")
    let inner = bytes.dropFirst(opening.count).dropLast(closing.count)
    require(!inner.contains(UInt8(ascii: "<")), "\(text.debugDescription) renders as \(html.debugDescription)")
    return 0
}
