import Mustache

/// A string for `{{name}}`, printed as it is (escaped by the template's content type), for
/// the `child(named:)` of a `MustacheParent` model's rows.
///
/// Why not the `String` itself: swift-mustache prints a value it does not know by probing it
/// for an optional, then `String(describing:)`, a handful of dynamic casts per value; a value
/// that is `MustacheCustomRenderable` is printed by one. On a page of 50 invoices (550
/// values) the casts were about a sixth of the render. In a section it counts as present,
/// as a `String` does; return nil for an absent value.
public struct TemplateText: MustacheCustomRenderable, CustomStringConvertible, Sendable {
    public let text: String

    public init(_ text: String) { self.text = text }

    public var renderText: String { text }
    public var isNull: Bool { false }
    public var description: String { text }
}
