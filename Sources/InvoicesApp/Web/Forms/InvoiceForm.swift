import Foundation
import ObjectGraph

/// The invoice form's table. Labels are said here; lengths and required flags come from
/// ``Invoice``'s declarations.
extension Invoice: EditableEntity {
    static var formPath: String { "invoices" }
    static var formNoun: String { "invoice" }

    static var formFields: [FormFieldSpec<Invoice>] {
        [.optionalText(\.identifier, label: "Invoice number",
                       hint: "Left empty, the next number of the year is given when the invoice is sent.",
                       duplicateMessage: "Another invoice already has this number: choose another, or leave it empty."),
         .choice(\.client, label: "Client", placeholder: "Choose a client…") { context in
             try context.fetch(FetchRequest<Client>(sortBy: [SortDescriptor(\.name)]))
         },
         currencyField, statusField,
         .day(\.issueDate, label: "Issue date"),
         .day(\.dueDate, label: "Due date"),
         .optionalText(\.notes, label: "Notes", input: .textarea)]
    }

    /// Chosen among the currencies invoices can be in; an unknown code (from an import) stays
    /// shown as it is, for the model's rule to name.
    private static var currencyField: FormFieldSpec<Invoice> {
        let choices: @Sendable (ManagedObjectContext) -> [(value: String, label: String)] = { _ in
            Currency.invoiceable.map { ($0.code, "\($0.code) – \($0.name)") }
        }
        return FormFieldSpec(\Invoice.currency, label: "Currency", input: .select(choices: choices, placeholder: "Choose…"),
                             read: { $0.currency }) { text, invoice, _ in
            switch FieldInput.currencyCode(text) {
            case .success(let code) where code.count == 3 && code.allSatisfy({ $0.isASCII && $0.isLetter }):
                if invoice.currency != code { invoice.currency = code }
                return nil
            case .success(let code):
                return "Currency \"\(code)\" is not a three-letter ISO 4217 code such as EUR, USD or JPY."
            case .failure(let error):
                return error.message
            }
        }
    }

    private static var statusField: FormFieldSpec<Invoice> {
        let choices: @Sendable (ManagedObjectContext) -> [(value: String, label: String)] = { _ in
            InvoiceStatus.allCases.map { ($0.rawValue, $0.label) }
        }
        return FormFieldSpec(\Invoice.status, label: "Status", input: .select(choices: choices, placeholder: "Choose…"),
                             read: { $0.status.rawValue }) { text, invoice, _ in
            switch FieldInput.status(text) {
            case .success(let status):
                if invoice.status != status { invoice.status = status }
                return nil
            case .failure(let error):
                return error.message
            }
        }
    }

    static func prepareNew(_ invoice: Invoice, parameters: [String: String], in context: ManagedObjectContext) {
        if let pk = parameters["client"].flatMap({ Int64($0) }),
           let id = context.persistentStoreCoordinator.managedObjectID(for: Client.self, primaryKey: pk),
           let client = try? context.existingObject(with: id, as: Client.self) {
            invoice.client = client
        }
        // A new invoice starts with one empty line to fill in.
        let line = LineItem(context: context)
        line.itemDescription = ""
        invoice.appendLine(line)
    }

    /// The total follows the lines, the status the total (see ``Invoice/settleLines()``).
    static func inputApplied(_ invoice: Invoice, in context: ManagedObjectContext) {
        invoice.settleLines()
    }

    var formTitle: String { displayNumber }
    var formSummary: String { money.formatted }
}
