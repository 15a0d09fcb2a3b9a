import Foundation
import HTTPTypes
import Mustache

/// Renders Mustache templates from a directory, HTML-escaped by default, with a layout.
///
/// Conventions: every `*.mustache` file below the directory is a template named by its path
/// without the extension (`clients/show`), usable as a partial by that name
/// (`{{> partials/nav}}`). A page is rendered, then placed in the layout template (`layout` by
/// default) as `{{{content}}}`; the layout sees the page's values too (`{{title}}`).
/// `{{value}}` escapes HTML; `{{{value}}}` inserts it raw, for HTML you produced yourself.
///
/// ```swift
/// let pages = try TemplateRenderer(directory: "Templates", development: true)
/// router.get("/clients/:pk") { request in
///     .html(try pages.render("clients/show", ["title": "Acme", "client": client]))
/// }
/// ```
/// In development mode every render reads the templates from disk again, so an edit shows at the
/// next reload; otherwise they are read once, when the renderer is created.
public struct TemplateRenderer: Sendable {
    /// Why a template could not be loaded or rendered.
    public enum Error: Swift.Error, CustomStringConvertible {
        case directoryNotFound(String)
        case templateNotFound(name: String, directory: String)
        case invalidTemplate(file: String, reason: String)

        public var description: String {
            switch self {
            case .directoryNotFound(let directory):
                "Template directory \"\(directory)\" not found; pass the folder holding the .mustache files."
            case .templateNotFound(let name, let directory):
                "No template \"\(name)\" in \(directory): create \(directory)/\(name).mustache or fix the name."
            case .invalidTemplate(let file, let reason):
                "Template \(file) does not parse: \(reason)."
            }
        }
    }

    public let directory: String
    public let development: Bool
    /// The templates read at creation, used when not in development mode.
    private let library: MustacheLibrary
    /// Fragments rendered once per key (``fragment(_:_:key:)``).
    private let memo = FragmentMemo()

    /// Loads the templates of `directory`.
    /// - Throws: `TemplateRenderer.Error` when the directory is missing or a template does not parse.
    public init(directory: String, development: Bool = false) throws(TemplateRenderer.Error) {
        self.directory = directory
        self.development = development
        self.library = try Self.load(directory)
    }

    /// Renders the template `name` with `context` (a dictionary, or any value whose stored
    /// properties are read by name), placed in `layout` unless it is nil.
    /// - Throws: `TemplateRenderer.Error` for a missing template (or, in development, one that
    ///   no longer parses).
    public func render(_ name: String, _ context: Any, layout: String? = "layout") throws(TemplateRenderer.Error) -> String {
        let library = development ? try Self.load(directory) : self.library
        let context = TemplateValues.snapshot(context)
        guard let page = library.render(context, withTemplate: name) else {
            throw .templateNotFound(name: name, directory: directory)
        }
        guard let layout else { return page }
        guard let framed = library.render(LayoutContext(content: page, page: context), withTemplate: layout) else {
            throw .templateNotFound(name: layout, directory: directory)
        }
        return framed
    }

    /// The template `name` rendered with `context` and no layout, once per `key`: for a
    /// fragment many pages repeat that depends only on what `key` names (a `<select>` of
    /// 170 currencies with one selected, inserted with `{{{…}}}`), which would otherwise cost
    /// each page hundreds of lookups. `key` must identify `context` entirely. In development
    /// mode it is rendered every time, so template edits show.
    /// - Throws: `TemplateRenderer.Error` for a missing template.
    public func fragment(_ name: String, _ context: @autoclosure () -> Any, key: String) throws(TemplateRenderer.Error) -> String {
        guard !development else { return try render(name, context(), layout: nil) }
        return try memo.fragment(name + "\u{0}" + key) { () throws(TemplateRenderer.Error) -> String in
            try render(name, context(), layout: nil)
        }
    }

    /// An HTML response with the rendered page: `return try pages.response("clients/show", page)`.
    public func response(_ name: String, _ context: Any, layout: String? = "layout",
                         status: HTTPResponse.Status = .ok) throws(TemplateRenderer.Error) -> Response {
        .html(try render(name, context, layout: layout), status: status)
    }

    /// Reads every template below `directory` (sync, so a render in development mode can reload).
    private static func load(_ directory: String) throws(TemplateRenderer.Error) -> MustacheLibrary {
        MarkdownContentType.register()   // templates may declare {{% CONTENT_TYPE: MARKDOWN}}
        HTMLContentType.register()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue,
              let enumerator = FileManager.default.enumerator(atPath: directory) else {
            throw .directoryNotFound(directory)
        }
        var library = MustacheLibrary()
        for case let path as String in enumerator where path.hasSuffix(".mustache") {
            let file = directory + "/" + path
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
            do {
                // Every template starts in ``HTMLContentType`` (the library's own escaping,
                // faster); one that declares another content type switches to it.
                try library.register(HTMLContentType.pragma + text, named: String(path.dropLast(".mustache".count)))
            } catch {
                throw .invalidTemplate(file: file, reason: "\(error)")
            }
        }
        return library
    }
}

/// What the layout sees: `content`, the rendered page, and otherwise the page's own values.
private struct LayoutContext: MustacheParent {
    let content: String
    /// The page's context, already a snapshot (dictionaries rather than structs).
    let page: Any

    func child(named name: String) -> Any? {
        if name == "content" { return content }
        return (page as? MustacheParent)?.child(named: name)
    }
}
