import Foundation
import ObjectGraph

extension InvoicesModel {
    /// What a version 1 invoice's one line says when its notes say nothing.
    public static let migratedLineDescription = "Amount invoiced"

    /// How a file of any earlier version reaches the current one.
    ///
    /// - 1 → 2 is custom: each invoice's amount becomes its one line (quantity 1, unit price
    ///   the amount, no tax, described by the first line of its notes). Its total is the old
    ///   amount exactly: the amount had no more decimals than the currency's minor units.
    /// - 2 → 3 is lightweight: the invoice number becomes optional (drafts have none) and the
    ///   per-year sequences arrive empty; each starts after the highest number of its year
    ///   already written in the format (``InvoiceNumbering``), so no number is given twice.
    /// - Throws: `ModelError` or `MigrationPlanError` only for a programming error.
    public static func plan() throws -> MigrationPlan {
        try MigrationPlan(models: [InvoicesModelV1.make(), InvoicesModelV2.make(), shared.get()], stages: [
            .custom(from: 1, to: 2, name: "amount to one line item") { migration in
                try migration.forEachRow(of: InvoicesModelV1.Invoice.self) { row, context in
                    let invoice = try context.existingObject(with: row.objectID, as: InvoicesModelV2.Invoice.self)
                    let line = InvoicesModelV2.LineItem(context: context)
                    line.itemDescription = migratedDescription(notes: try row[\.notes])
                    line.unitPrice = try row[\.amount]
                    line.invoice = invoice
                }
            },
            .lightweight(from: 2, to: 3),
        ])
    }

    /// The first non-empty line of the notes, cut to a line's length, or
    /// ``migratedLineDescription``.
    static func migratedDescription(notes: String?) -> String {
        let first = (notes ?? "").split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
        guard let first else { return migratedLineDescription }
        return String(first.prefix(200))
    }

    /// The plan built once for the process.
    static let sharedPlan: Result<MigrationPlan, any Error> = Result { try plan() }
}
