import Foundation

/// Lays an ``InvoiceDocument`` out on A4 pages: the title and dates, the client's address, a
/// table of lines (continued on further pages when long), the net, tax and total, the
/// payments and the balance, then the rounding rule and the notes.
///
/// ```swift
/// let bytes = try InvoicePDF(document).render()
/// ```
public struct InvoicePDF: Sendable {
    public let document: InvoiceDocument

    public init(_ document: InvoiceDocument) {
        self.document = document
    }

    private static let margin = 56.0
    private static let width = PDFCanvas.pageWidth - 2 * margin
    private static let bottom = PDFCanvas.pageHeight - margin
    /// The table's columns: description, quantity, unit price, tax rate, net (x, width).
    private static let columns: [(x: Double, width: Double)] = [
        (margin, 215), (margin + 220, 50), (margin + 275, 70), (margin + 350, 40), (margin + 395, width - 395),
    ]

    /// The PDF's bytes.
    /// - Throws: ``PDFError`` when cairo cannot make the file.
    public func render() throws(PDFError) -> [UInt8] {
        let canvas = try PDFCanvas(title: document.title)
        var y = header(on: canvas)
        y = lineTable(on: canvas, from: y)
        y = totals(on: canvas, from: y)
        y = payments(on: canvas, from: y)
        footer(on: canvas, from: y)
        return try canvas.finish()
    }

    private func money(_ amount: Decimal) -> String {
        Currency.named(document.currency)?.format(amount) ?? "\(amount) \(document.currency)"
    }

    /// Title, dates and the client's address; returns where the table starts.
    private func header(on canvas: PDFCanvas) -> Double {
        let m = Self.margin
        var y = m
        y += canvas.text(document.title, x: m, y: y, width: Self.width, style: .init(size: 20, bold: true)) + 4
        let dates = "Issued \(document.issueDay)   ·   Due \(document.dueDay)   ·   \(document.currency)"
        y += canvas.text(dates, x: m, y: y, width: Self.width, style: .init(gray: true)) + 22
        y += canvas.text("Bill to", x: m, y: y, width: Self.width, style: .init(size: 8.5, gray: true)) + 2
        let client = document.client
        let address = (client.lines + [client.email, client.number.map { "Client number \($0)" }].compactMap { $0 })
            .filter { !$0.isEmpty }
        y += canvas.text(client.name, x: m, y: y, width: Self.width / 2, style: .init(size: 11, bold: true)) + 2
        for line in address {
            y += canvas.text(line, x: m, y: y, width: Self.width / 2)
        }
        return y + 28
    }

    private func tableHeading(on canvas: PDFCanvas, at y: Double) -> Double {
        let titles = ["Description", "Qty", "Unit price", "Tax", "Net"]
        var height = 0.0
        for (index, title) in titles.enumerated() {
            let column = Self.columns[index]
            height = max(height, canvas.text(title, x: column.x, y: y, width: column.width,
                                             style: .init(size: 8.5, bold: true, alignment: index == 0 ? .left : .right)))
        }
        canvas.rule(x: Self.margin, y: y + height + 3, width: Self.width)
        return y + height + 8
    }

    /// One row per line; a new page (with the heading again) when the next row would not fit.
    private func lineTable(on canvas: PDFCanvas, from start: Double) -> Double {
        var y = tableHeading(on: canvas, at: start)
        for line in document.lines {
            let estimated = 14.0 * Double(1 + line.description.count / 48)
            if y + estimated > Self.bottom - 20 {
                canvas.newPage()
                y = tableHeading(on: canvas, at: Self.margin)
            }
            let cells = [line.description, "\(line.quantity)", money(line.unitPrice), "\(line.taxRate) %", money(line.net)]
            var height = 0.0
            for (index, cell) in cells.enumerated() {
                let column = Self.columns[index]
                height = max(height, canvas.text(cell, x: column.x, y: y, width: column.width,
                                                 style: .init(alignment: index == 0 ? .left : .right)))
            }
            y += height + 5
        }
        canvas.rule(x: Self.margin, y: y, width: Self.width)
        return y + 8
    }

    /// A label and an amount, right-aligned under the table.
    private func sum(_ label: String, _ amount: Decimal, on canvas: PDFCanvas, at y: Double, bold: Bool = false) -> Double {
        let labelColumn = (x: Self.margin + 220, width: 170.0), amountColumn = Self.columns[4]
        let style = PDFCanvas.Style(size: bold ? 11 : 9.5, bold: bold, alignment: .right)
        let height = canvas.text(label, x: labelColumn.x, y: y, width: labelColumn.width, style: style)
        canvas.text(money(amount), x: amountColumn.x, y: y, width: amountColumn.width, style: style)
        return y + height + 3
    }

    private func totals(on canvas: PDFCanvas, from start: Double) -> Double {
        var y = start
        if y > Self.bottom - 70 { canvas.newPage(); y = Self.margin }
        y = sum("Net", document.netTotal, on: canvas, at: y)
        y = sum("Tax", document.taxTotal, on: canvas, at: y)
        return sum("Total", document.total, on: canvas, at: y, bold: true) + 16
    }

    private func payments(on canvas: PDFCanvas, from start: Double) -> Double {
        var y = start
        if !document.payments.isEmpty {
            y += canvas.text("Payments", x: Self.margin, y: y, width: Self.width, style: .init(size: 8.5, bold: true)) + 3
            for payment in document.payments {
                if y > Self.bottom - 60 { canvas.newPage(); y = Self.margin }
                let text = "\(payment.day)  \(payment.method)" + (payment.note.map { " — \($0)" } ?? "")
                let height = canvas.text(text, x: Self.margin, y: y, width: 380)
                canvas.text(money(payment.amount), x: Self.columns[4].x, y: y, width: Self.columns[4].width,
                            style: .init(alignment: .right))
                y += height + 3
            }
        }
        if y > Self.bottom - 30 { canvas.newPage(); y = Self.margin }
        return sum("Balance due", document.balance, on: canvas, at: y + 4, bold: true) + 18
    }

    private func footer(on canvas: PDFCanvas, from start: Double) {
        var y = start
        if y > Self.bottom - 60 { canvas.newPage(); y = Self.margin }
        y += canvas.text(document.roundingRule, x: Self.margin, y: y, width: Self.width,
                         style: .init(size: 8, gray: true)) + 10
        if let notes = document.notes, !notes.isEmpty {
            if y > Self.bottom - 40 { canvas.newPage(); y = Self.margin }
            canvas.text(notes, x: Self.margin, y: y, width: Self.width, style: .init(size: 8.5))
        }
    }
}
