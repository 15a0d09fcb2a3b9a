import Foundation
import ObjectGraph

/// The fields of the invoice form: reading an invoice's values as text, applying typed text
/// (amount, currency, dates, status and client are parsed, with a reason when they cannot be).
/// Both run on the scratchpad's queue.
enum InvoiceFormFields {
    /// The invoice's values as the inputs show them.
    static func values(of invoice: Invoice) -> [String: String] {
        ["identifier": invoice.identifier,
         "client": invoice.client?.objectID.primaryKey.map(String.init) ?? "",
         "amount": invoice.money.plainAmount,
         "currency": invoice.currency,
         "status": invoice.status.rawValue,
         "issueDate": invoice.issueDay.description,
         "dueDate": invoice.dueDay.description,
         "notes": invoice.notes ?? ""]
    }

    /// Applies the submitted text to the invoice; inputs that cannot be read are not applied
    /// and are returned with their reasons (the page keeps the typed text).
    static func apply(_ input: [String: String], to invoice: Invoice, in context: ManagedObjectContext) -> [FieldInputError] {
        var errors: [FieldInputError] = []
        func take<T: Equatable>(_ result: Result<T, FieldInputError>?, _ set: (T) -> Void) {
            switch result {
            case .success(let value)?: set(value)
            case .failure(let error)?: errors.append(error)
            case nil: break
            }
        }
        if let identifier = input["identifier"] {
            let trimmed = identifier.trimmingCharacters(in: .whitespacesAndNewlines)
            if invoice.identifier != trimmed { invoice.identifier = trimmed }
        }
        take(input["amount"].map { FieldInput.amount($0) }) { if invoice.amount != $0 { invoice.amount = $0 } }
        take(input["currency"].map { FieldInput.currencyCode($0) }) { code in
            if code.count == 3, code.allSatisfy({ $0.isASCII && $0.isLetter }) {
                if invoice.currency != code { invoice.currency = code }
            } else {
                errors.append(FieldInputError(property: "currency",
                    message: "Currency \"\(code)\" is not a three-letter ISO 4217 code such as EUR, USD or JPY."))
            }
        }
        take(input["status"].map { FieldInput.status($0) }) { if invoice.status != $0 { invoice.status = $0 } }
        take(input["issueDate"].map { FieldInput.day($0, property: "issueDate", label: "Issue date") }) {
            if invoice.issueDay != $0 { invoice.issueDay = $0 }
        }
        take(input["dueDate"].map { FieldInput.day($0, property: "dueDate", label: "Due date") }) {
            if invoice.dueDay != $0 { invoice.dueDay = $0 }
        }
        if let notes = input["notes"] {
            let value = FieldInput.optionalText(notes)
            if invoice.notes != value { invoice.notes = value }
        }
        if let text = input["client"] {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if let pk = Int64(trimmed), let client = try? context.existingObject(Client.self, primaryKey: pk) {
                if invoice.client?.objectID != client.objectID { invoice.client = client }
            } else {
                errors.append(FieldInputError(property: "client", message: trimmed.isEmpty
                    ? "Client is required: choose one." : "Client \"\(trimmed)\" does not exist: choose one from the list."))
            }
        }
        return errors
    }

    /// The clients to choose from, by name: (primary key, name).
    static func clientChoices(in context: ManagedObjectContext) throws -> [ClientChoice] {
        try context.fetch(FetchRequest<Client>(sortBy: [SortDescriptor(\.name)])).compactMap { client in
            client.objectID.primaryKey.map { ClientChoice(id: $0, name: client.name) }
        }
    }

    /// The form's fields for these values and errors.
    static func fields(values: [String: String], errors: [String: String], clients: [ClientChoice]) -> [FormField] {
        let client = values["client"] ?? ""
        let status = values["status"] ?? "draft"
        let currency = values["currency"] ?? ""
        var currencyOptions = Currency.invoiceable.map {
            SelectOption(value: $0.code, label: "\($0.code) – \($0.name)", selected: $0.code == currency)
        }
        if !currencyOptions.contains(where: \.selected) {
            currencyOptions.insert(SelectOption(value: currency, label: currency.isEmpty ? "Choose…" : currency,
                                                selected: true), at: 0)
        }
        return [
            FormField(name: "identifier", label: "Invoice number", value: values["identifier"] ?? "",
                      error: errors["identifier"], required: true, hint: "Unique, e.g. INV-2025-00042", maxLength: 64),
            FormField(name: "client", label: "Client", value: client, error: errors["client"], required: true,
                      options: [SelectOption(value: "", label: "Choose a client…", selected: client.isEmpty)]
                        + clients.map { SelectOption(value: String($0.id), label: $0.name, selected: String($0.id) == client) }),
            FormField(name: "amount", label: "Amount", value: values["amount"] ?? "", error: errors["amount"],
                      required: true, hint: "A dot for decimals, no thousands separators: 1234.50"),
            FormField(name: "currency", label: "Currency", value: currency, error: errors["currency"], required: true,
                      options: currencyOptions),
            FormField(name: "status", label: "Status", value: status, error: errors["status"], required: true,
                      options: InvoiceStatus.allCases.map {
                          SelectOption(value: $0.rawValue, label: $0.label, selected: $0.rawValue == status)
                      }),
            FormField(name: "issueDate", label: "Issue date", type: "date", value: values["issueDate"] ?? "",
                      error: errors["issueDate"], required: true),
            FormField(name: "dueDate", label: "Due date", type: "date", value: values["dueDate"] ?? "",
                      error: errors["dueDate"], required: true),
            FormField(name: "notes", label: "Notes", value: values["notes"] ?? "", error: errors["notes"],
                      isTextarea: true, maxLength: 2000),
        ]
    }
}

/// A client the invoice form offers.
struct ClientChoice: Sendable, Hashable {
    let id: Int64
    let name: String
}
