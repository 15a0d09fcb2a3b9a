import Foundation
import ObjectGraph

/// The invoice form's lines: a table of inputs inside the invoice's own form (`line-0-quantity`,
/// …), with buttons to add, remove and move lines. The total is derived (``Invoice/settleLines()``).
extension Invoice {
    static var formRows: FormRowsSpec<Invoice>? {
        FormRowsSpec(
            prefix: "line", title: "Lines", noun: "Line",
            columns: [descriptionColumn,
                      decimalColumn("quantity", property: "quantity", label: "quantity", \.quantity),
                      decimalColumn("unitPrice", property: "unitPrice", label: "unit price", \.unitPrice),
                      decimalColumn("taxRate", property: "taxRate", label: "tax rate %", \.taxRate)],
            rows: { $0.currentLines },
            reorder: { invoice, rows in invoice.order(rows.compactMap { $0 as? LineItem }) },
            append: { invoice, context in
                let line = LineItem(context: context)
                line.itemDescription = ""
                invoice.appendLine(line)
            },
            summary: { row in
                guard let line = row as? LineItem else { return "" }
                return Money(amount: line.net, currency: line.invoice?.currency ?? "").formatted
            },
            totals: { invoice in
                [("Net", Money(amount: invoice.netTotal, currency: invoice.currency).formatted),
                 ("Tax", Money(amount: invoice.taxTotal, currency: invoice.currency).formatted),
                 ("Total", invoice.money.formatted)]
            },
            note: Invoice.roundingRule)
    }

    /// How amounts are rounded, as pages state it.
    static let roundingRule = "Each line's net (quantity × unit price) and tax (net × tax rate) are rounded to the "
        + "currency's smallest unit, half away from zero; the total is the sum of the rounded lines."

    private static var descriptionColumn: FormRowColumn {
        FormRowColumn(name: "description", property: "itemDescription", label: "description", isNumeric: false,
                      read: { ($0 as? LineItem)?.itemDescription ?? "" },
                      write: { text, row in
                          guard let line = row as? LineItem else { return nil }
                          let trimmed = text.trimmingCharacters(in: .whitespaces)
                          if line.itemDescription != trimmed { line.itemDescription = trimmed }
                          return nil
                      })
    }

    /// A decimal column: typed with a dot, no grouping; the model's rules check the range.
    private static func decimalColumn(_ name: String, property: String, label: String,
                                      _ keyPath: ReferenceWritableKeyPath<LineItem, Decimal> & Sendable) -> FormRowColumn {
        FormRowColumn(name: name, property: property, label: label, isNumeric: true,
                      read: { row in (row as? LineItem).map { "\($0[keyPath: keyPath])" } ?? "" },
                      write: { text, row in
                          guard let line = row as? LineItem else { return nil }
                          switch FieldInput.amount(text, property: property) {
                          case .success(let value):
                              if line[keyPath: keyPath] != value { line[keyPath: keyPath] = value }
                              return nil
                          case .failure(let error):
                              // "Amount "x" is not a number…": the row and column are named before it.
                              return error.message.hasPrefix("Amount ") ? String(error.message.dropFirst(7)) : error.message
                          }
                      })
    }
}
