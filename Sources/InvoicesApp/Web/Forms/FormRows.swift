import Foundation
import ObjectGraph

/// ``FormRowsSpec`` with the owner's type erased, for ``FormTable``: reads rows into the form's
/// values (`line-0-quantity`, …, and `line-count`), applies posted rows, and carries out the
/// row buttons (`add-line`, `remove-line-2`, `move-up-2`, `move-down-2`). On the scratchpad's queue.
struct FormRows: Sendable {
    let prefix: String
    let title: String
    let noun: String
    let columns: [FormRowColumn]
    let rows: @Sendable (ManagedObject) -> [ManagedObject]
    let reorder: @Sendable (ManagedObject, [ManagedObject]) -> Void
    let append: @Sendable (ManagedObject, ManagedObjectContext) -> Void
    let summary: @Sendable (ManagedObject) -> String
    let totals: @Sendable (ManagedObject) -> [(label: String, value: String)]
    let note: String

    init<Owner: EditableEntity>(_ spec: FormRowsSpec<Owner>) {
        prefix = spec.prefix
        title = spec.title
        noun = spec.noun
        columns = spec.columns
        rows = { ($0 as? Owner).map(spec.rows) ?? [] }
        reorder = { owner, rows in if let owner = owner as? Owner { spec.reorder(owner, rows) } }
        append = { owner, context in if let owner = owner as? Owner { spec.append(owner, context) } }
        summary = spec.summary
        totals = { ($0 as? Owner).map(spec.totals) ?? [] }
        note = spec.note
    }

    /// The value key of the number of rows.
    var countKey: String { "\(prefix)-count" }

    /// The input name of a row's column.
    func key(_ index: Int, _ column: String) -> String { "\(prefix)-\(index)-\(column)" }

    /// The rows' values as the inputs show them, and their count.
    func values(of owner: ManagedObject) -> [String: String] {
        let rows = rows(owner)
        var values = [countKey: String(rows.count)]
        for (index, row) in rows.enumerated() {
            for column in columns { values[key(index, column.name)] = column.read(row) }
            values[key(index, "summary")] = summary(row)
        }
        return values
    }

    /// The posted row inputs: `{prefix}-{i}-{column}` for i from 0 while any is present.
    func input(from submitted: (String) -> String?) -> [String: String] {
        var input: [String: String] = [:]
        for index in 0..<Self.maximumRows {
            let found = columns.compactMap { column in submitted(key(index, column.name)).map { (key(index, column.name), $0) } }
            if found.isEmpty { break }
            for (name, value) in found { input[name] = value }
        }
        return input
    }

    /// The most rows a form posts (a form is at most ``FormRoutes/maximumFormSize`` anyway).
    static let maximumRows = 500

    /// Applies posted inputs to the rows they were shown for (by position); returns what could
    /// not be read, each naming its row and column.
    func apply(_ input: [String: String], to owner: ManagedObject) -> [FieldInputError] {
        var errors: [FieldInputError] = []
        for (index, row) in rows(owner).enumerated() {
            for column in columns {
                let name = key(index, column.name)
                guard let text = input[name], let message = column.write(text, row) else { continue }
                errors.append(FieldInputError(property: name, message: "\(noun) \(index + 1), \(column.label): \(message)"))
            }
        }
        return errors
    }

    /// Carries out a row button; false when `action` is not one.
    @discardableResult
    func perform(_ action: String, on owner: ManagedObject, in context: ManagedObjectContext) -> Bool {
        var rows = rows(owner)
        if action == "add-\(prefix)" {
            append(owner, context)
            return true
        }
        if let index = self.index(in: action, after: "remove-\(prefix)-"), rows.indices.contains(index) {
            let removed = rows.remove(at: index)
            reorder(owner, rows)
            context.delete(removed)
            return true
        }
        if let index = self.index(in: action, after: "move-up-"), index > 0, rows.indices.contains(index) {
            rows.swapAt(index, index - 1)
            reorder(owner, rows)
            return true
        }
        if let index = self.index(in: action, after: "move-down-"), index + 1 < rows.count, index >= 0 {
            rows.swapAt(index, index + 1)
            reorder(owner, rows)
            return true
        }
        return action.hasPrefix("remove-\(prefix)-") || action.hasPrefix("move-")
    }

    /// Each row's position, by object ID (validation failures name objects).
    func positions(in owner: ManagedObject) -> [ObjectID: Int] {
        Dictionary(uniqueKeysWithValues: rows(owner).enumerated().map { ($1.objectID, $0) })
    }

    private func index(in action: String, after prefix: String) -> Int? {
        action.hasPrefix(prefix) ? Int(action.dropFirst(prefix.count)) : nil
    }

    /// Where a validation failure of a row points: its input, and the message naming the row.
    func fieldError(_ failure: ValidationFailure, rowIndex index: Int) -> FieldError {
        let column = columns.first { $0.property == failure.property }
        let label = column?.label ?? failure.property ?? ""
        return FieldError(field: key(index, column?.name ?? "description"),
                          message: "\(noun) \(index + 1), \(label): " + Self.lowercasedFirst(failure.message))
    }

    private static func lowercasedFirst(_ text: String) -> String {
        text.prefix(1).lowercased() + text.dropFirst()
    }
}

extension FormRows {
    /// The section's page model from the form's values (typed text kept on top), its errors
    /// by input name, and the owner's totals.
    func section(values: [String: String], errors: [String: String], totals: [(label: String, value: String)]) -> RowsSection {
        let count = Int(values[countKey] ?? "") ?? 0
        let rows = (0..<count).map { index in
            RowInputs(number: index + 1,
                      cells: columns.map { column in
                          let name = key(index, column.name)
                          return RowCell(name: name, label: "\(noun) \(index + 1) \(column.label)", value: values[name] ?? "",
                                         error: errors[name], isNumeric: column.isNumeric)
                      },
                      summary: values[key(index, "summary")] ?? "",
                      removeAction: "remove-\(prefix)-\(index)",
                      moveUpAction: index > 0 ? "move-up-\(index)" : nil,
                      moveDownAction: index + 1 < count ? "move-down-\(index)" : nil)
        }
        return RowsSection(prefix: prefix, title: title, headers: columns.map(\.label), rows: rows,
                           addAction: "add-\(prefix)", addLabel: "Add a \(noun.lowercased())",
                           totals: totals.map { RowsTotal(label: $0.label, value: $0.value) }, note: note)
    }
}
