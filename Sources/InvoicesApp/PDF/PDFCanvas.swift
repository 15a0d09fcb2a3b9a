import CPangoCairo
import Foundation

/// What can go wrong making a PDF.
public enum PDFError: Error, Sendable, Equatable, CustomStringConvertible {
    /// cairo refused (out of memory, or a font it could not use); its own words.
    case cairo(String)

    public var description: String {
        switch self {
        case .cairo(let reason): "The PDF could not be made: cairo said \"\(reason)\"."
        }
    }
}

/// Pages of a PDF drawn with cairo, text laid out by pango, into memory.
///
/// Text goes through `pango_layout_set_text`, never markup, so a client's name cannot change
/// the layout; pango picks a font per script through fontconfig (DejaVu for Latin and Greek,
/// Noto CJK for Japanese), so any name prints. Positions are in points from the top left of
/// an A4 page. One canvas is used by one thread.
final class PDFCanvas {
    /// A4 in points.
    static let pageWidth = 595.276, pageHeight = 841.89

    /// How a piece of text is set.
    struct Style {
        var size: Double = 9.5
        var bold = false
        var gray = false
        var alignment: Alignment = .left

        enum Alignment { case left, right }
    }

    private let output = PDFOutput()
    private let surface: OpaquePointer
    private let cairo: OpaquePointer
    private let layout: OpaquePointer
    /// The page being drawn, from 1.
    private(set) var pageNumber = 1

    init(title: String) throws(PDFError) {
        let box = Unmanaged.passUnretained(output).toOpaque()
        guard let surface = cairo_pdf_surface_create_for_stream(PDFOutput.write, box, Self.pageWidth, Self.pageHeight)
        else { throw .cairo("no PDF surface") }
        self.surface = surface
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, title)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "Invoices")
        guard let cairo = cairo_create(surface), let layout = pango_cairo_create_layout(cairo) else {
            cairo_surface_destroy(surface)
            throw .cairo("no drawing context")
        }
        self.cairo = cairo
        self.layout = layout
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(layout))
        cairo_destroy(cairo)
        cairo_surface_destroy(surface)
    }

    /// Draws `text` in a box `width` wide at (`x`, `y`), wrapping at word boundaries.
    /// - Returns: the height the text took.
    @discardableResult
    func text(_ text: String, x: Double, y: Double, width: Double, style: Style = Style()) -> Double {
        let font = pango_font_description_new()
        pango_font_description_set_family(font, "DejaVu Sans, Noto Sans CJK JP, sans-serif")
        pango_font_description_set_absolute_size(font, style.size * Double(cpc_pango_scale()))
        pango_font_description_set_weight(font, style.bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL)
        pango_layout_set_font_description(layout, font)
        pango_font_description_free(font)
        pango_layout_set_width(layout, Int32(width * Double(cpc_pango_scale())))
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        pango_layout_set_alignment(layout, style.alignment == .right ? PANGO_ALIGN_RIGHT : PANGO_ALIGN_LEFT)
        pango_layout_set_text(layout, text, Int32(clamping: text.utf8.count))
        let shade = style.gray ? 0.42 : 0.1
        cairo_set_source_rgb(cairo, shade, shade, shade)
        cairo_move_to(cairo, x, y)
        pango_cairo_show_layout(cairo, layout)
        var height: Int32 = 0
        pango_layout_get_size(layout, nil, &height)
        return Double(height) / Double(cpc_pango_scale())
    }

    /// A horizontal rule from `x` to `x + width`.
    func rule(x: Double, y: Double, width: Double, weight: Double = 0.5) {
        cairo_set_source_rgb(cairo, 0.7, 0.7, 0.7)
        cairo_set_line_width(cairo, weight)
        cairo_move_to(cairo, x, y)
        cairo_line_to(cairo, x + width, y)
        cairo_stroke(cairo)
    }

    /// Ends the page and starts the next.
    func newPage() {
        cairo_show_page(cairo)
        pageNumber += 1
    }

    /// Ends the last page and returns the file's bytes.
    func finish() throws(PDFError) -> [UInt8] {
        cairo_show_page(cairo)
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw .cairo(cairo_status_to_string(status).map { String(cString: $0) } ?? "status \(status.rawValue)")
        }
        return output.bytes
    }
}

/// Collects what cairo writes. A class, so cairo can hold a pointer to it.
private final class PDFOutput {
    var bytes: [UInt8] = []

    static let write: cairo_write_func_t = { closure, data, length in
        guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
        let output = Unmanaged<PDFOutput>.fromOpaque(closure).takeUnretainedValue()
        output.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
        return CAIRO_STATUS_SUCCESS
    }
}
