import Foundation
import ObjectGraph

extension InvoicesModel {
    /// What a version 1 invoice's one line says when its notes say nothing.
    public static let migratedLineDescription = "Amount invoiced"

    /// How a file of any earlier version reaches the current one: 1 → 2 is custom, each
    /// invoice's amount becoming its one line (quantity 1, unit price the amount, no tax,
    /// described by the first line of its notes). Its total is the old amount exactly: the
    /// amount had no more decimals than the currency's minor units.
    /// - Throws: `ModelError` or `MigrationPlanError` only for a programming error.
    public static func plan() throws -> MigrationPlan {
        try MigrationPlan(models: [InvoicesModelV1.make(), shared.get()], stages: [
            .custom(from: 1, to: 2, name: "amount to one line item") { migration in
                try migration.forEachRow(of: InvoicesModelV1.Invoice.self) { row, context in
                    let invoice = try context.existingObject(with: row.objectID, as: Invoice.self)
                    invoice.setSingleLine(amount: try row[\.amount], description: migratedDescription(notes: try row[\.notes]))
                }
            },
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
