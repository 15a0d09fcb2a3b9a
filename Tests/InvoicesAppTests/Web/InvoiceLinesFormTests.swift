import Foundation
import ObjectGraph
import Testing
@testable import InvoicesApp

/// The invoice form's lines over real HTTP: rows of inputs in the invoice's own form, each
/// button (add, remove, move) keeping everything typed, totals rounded per line.
@Suite struct InvoiceLinesFormTests {
    /// A new invoice form for Beta Ltd, and the invoice's own fields.
    private func newInvoice(_ visitor: Visitor, identifier: String) async throws -> (path: String, fields: [(String, String)]) {
        let client = try await clientID("Beta Ltd", visitor: visitor)
        let (path, form) = try await visitor.openForm("/invoices/new?client=\(client)")
        return (path, [("csrf", try #require(form.csrf)), ("identifier", identifier), ("client", String(client)),
                       ("currency", "EUR"), ("status", "draft"), ("issueDate", "2025-06-01"), ("dueDate", "2025-07-01")])
    }

    /// The inputs of line `index`.
    private func line(_ index: Int, _ description: String, _ quantity: String, _ unitPrice: String,
                      _ taxRate: String) -> [(String, String)] {
        [("line-\(index)-description", description), ("line-\(index)-quantity", quantity),
         ("line-\(index)-unitPrice", unitPrice), ("line-\(index)-taxRate", taxRate)]
    }

    /// Three lines whose nets and taxes round: 3 × 0.333 = 0.999 → 1.00, tax 19 % 0.19;
    /// 1.5 × 80.01 = 120.015 → 120.02 (half away from zero), tax 7 % 8.4014 → 8.40;
    /// 1 × 0.005 → 0.01, no tax. Net 121.03, tax 8.59, total 129.62.
    private var threeLines: [(String, String)] {
        line(0, "Widgets", "3", "0.333", "19") + line(1, "Hours", "1.5", "80.01", "7") + line(2, "Fee", "1", "0.005", "0")
    }

    /// (description, quantity, unit price, tax rate, net, tax) of each line on disk, in order, and the amount.
    private func linesOnDisk(_ url: URL, _ identifier: String) async throws -> (lines: [String], amount: Decimal)? {
        let stack = try InvoicesStack(storeURL: url)
        let context = stack.newImportContext(name: "disk check")
        return try await context.perform { () throws -> (lines: [String], amount: Decimal)? in
            guard let invoice = try context.fetch(FetchRequest<Invoice>()).first(where: { $0.identifier == identifier }) else {
                return nil
            }
            let lines = invoice.currentLines.map {
                "\($0.itemDescription)|\($0.quantity)|\($0.unitPrice)|\($0.taxRate)|\($0.net)|\($0.tax)"
            }
            return (lines, invoice.amount)
        }
    }

    @Test func anInvoiceWithThreeLinesIsSavedWithExactTotals() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let (path, fields) = try await newInvoice(visitor, identifier: "INV-LINES-3")
            #expect(try await visitor.post(path, fields + line(0, "Widgets", "3", "0.333", "19") + [("action", "add-line")]).status == 303)
            #expect(try await visitor.post(path, fields + line(0, "Widgets", "3", "0.333", "19")
                                           + line(1, "Hours", "1.5", "80.01", "7") + [("action", "add-line")]).status == 303)
            let applied = try await visitor.post(path, fields + threeLines + [("action", "apply")])
            #expect(applied.status == 303)
            let form = try await visitor.get(path)
            #expect(form.text.contains("121.03 EUR") && form.text.contains("8.59 EUR") && form.text.contains("129.62 EUR"))
            #expect(form.text.contains("half away from zero"))
            let saved = try await visitor.post(path, fields + threeLines + [("action", "save")])
            #expect(saved.status == 303)
            let found = try #require(try await linesOnDisk(app.databaseURL, "INV-LINES-3"))
            #expect(found.lines == ["Widgets|3|0.333|19|1|0.19", "Hours|1.5|80.01|7|120.02|8.4", "Fee|1|0.005|0|0.01|0"])
            #expect(found.amount == Decimal(string: "129.62"))
            let page = try await visitor.get(try #require(saved.header("Location")))
            for expected in ["Widgets", "0.333 EUR", "19 %", "120.02 EUR", "121.03 EUR", "8.59 EUR", "129.62 EUR",
                             "half away from zero"] {
                #expect(page.text.contains(expected), "\(expected) missing from the invoice page")
            }
            let widgets = try #require(page.text.range(of: "Widgets")), fee = try #require(page.text.range(of: "Fee<"))
            #expect(widgets.lowerBound < fee.lowerBound)
        }
    }

    @Test func addingMovingAndRemovingLinesKeepsWhatWasTyped() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let (path, fields) = try await newInvoice(visitor, identifier: "INV-KEEP")
            let notes = ("notes", "Typed before adding")
            #expect(try await visitor.post(path, fields + [notes] + line(0, "First", "2", "10", "0")
                                           + [("action", "add-line")]).status == 303)
            var form = try await visitor.get(path).text
            #expect(form.contains(#"value="INV-KEEP""#) && form.contains("Typed before adding"))
            #expect(form.contains(#"name="line-0-description" value="First""#))
            #expect(form.contains(#"name="line-1-description" value="""#))

            #expect(try await visitor.post(path, fields + line(0, "First", "2", "10", "0") + line(1, "Second", "1", "5", "0")
                                           + [("action", "move-up-1")]).status == 303)
            form = try await visitor.get(path).text
            #expect(form.contains(#"name="line-0-description" value="Second""#))
            #expect(form.contains(#"name="line-1-description" value="First""#))
            #expect(form.contains(#"value="INV-KEEP""#))

            #expect(try await visitor.post(path, fields + line(0, "Second", "1", "5", "0") + line(1, "First", "2", "10", "0")
                                           + [("action", "move-down-0")]).status == 303)
            form = try await visitor.get(path).text
            #expect(form.contains(#"name="line-0-description" value="First""#))

            #expect(try await visitor.post(path, fields + line(0, "First", "2", "10", "0") + line(1, "Second", "1", "5", "0")
                                           + [("action", "remove-line-0")]).status == 303)
            form = try await visitor.get(path).text
            #expect(form.contains(#"name="line-0-description" value="Second""#))
            #expect(!form.contains(#"name="line-1-description""#))
            #expect(form.contains(#"value="INV-KEEP""#))
            #expect(try await invoiceIdentifiersOnDisk(app.databaseURL).contains("INV-KEEP") == false)

            #expect(try await visitor.post(path, fields + line(0, "Second", "1", "5", "0") + [("action", "save")]).status == 303)
            #expect(try await linesOnDisk(app.databaseURL, "INV-KEEP")?.lines == ["Second|1|5|0|5|0"])
        }
    }

    @Test func aLineWithQuantityZeroIsA422PointingAtItAndNothingIsSaved() async throws {
        try await withDashboard { app in
            let visitor = app.visitor()
            let (path, fields) = try await newInvoice(visitor, identifier: "INV-ZERO")
            _ = try await visitor.post(path, fields + line(0, "A", "1", "1", "0") + [("action", "add-line")])
            let refused = try await visitor.post(path, fields + line(0, "A", "1", "1", "0") + line(1, "B", "0", "2", "0")
                                                 + [("action", "save")])
            #expect(refused.status == 422)
            #expect(refused.text.contains("Line 2, quantity: must be more than zero."))
            #expect(refused.text.contains(##"href="#field-line-1-quantity""##))
            #expect(refused.text.contains(#"id="error-line-1-quantity""#))
            #expect(try await invoiceIdentifiersOnDisk(app.databaseURL).contains("INV-ZERO") == false)

            let unreadable = try await visitor.post(path, fields + line(0, "A", "1", "1", "0") + line(1, "B", "1", "2,50", "0")
                                                    + [("action", "save")])
            #expect(unreadable.status == 422)
            #expect(unreadable.text.contains("Line 2, unit price: "))
            #expect(unreadable.text.contains("is not a number like 1234.50"))
            #expect(unreadable.text.contains(#"name="line-1-unitPrice" value="2,50""#))
            #expect(try await invoiceIdentifiersOnDisk(app.databaseURL).contains("INV-ZERO") == false)
        }
    }
}
