import Foundation

/// A CSV record read into typed values, before any client is matched or object created.
/// Reading checks that each cell is a value of its kind; the model's rules (currency,
/// decimals, dates in order, lengths) are checked when the objects are made.
@dynamicMemberLookup
struct InvoiceCSVRow: Sendable {
    /// The client columns: a name, details, or both (to match an existing client or make one).
    @dynamicMemberLookup
    struct ClientFields: Sendable {
        var name: String?
        /// The email normalized (lower case).
        var details: ClientDetails

        subscript<T>(dynamicMember keyPath: WritableKeyPath<ClientDetails, T>) -> T {
            get { details[keyPath: keyPath] }
            set { details[keyPath: keyPath] = newValue }
        }
    }

    let line: Int
    let client: ClientFields
    let invoice: InvoiceFields

    subscript<T>(dynamicMember keyPath: KeyPath<InvoiceFields, T>) -> T { invoice[keyPath: keyPath] }

    /// Reads a record; the failure lists every problem of the row.
    static func read(_ record: CSVRecord, header: InvoiceCSVHeader) -> Result<InvoiceCSVRow, ImportReport.SkippedRow> {
        var reasons: [String] = []
        if record.fields.count != header.fieldCount {
            return .failure(.init(line: record.line, reasons: [
                "The row has \(record.fields.count) field\(record.fields.count == 1 ? "" : "s"), the header \(header.fieldCount); check for a missing or extra comma, or an unquoted comma inside a value."]))
        }
        func text(_ column: InvoiceCSVColumn) -> String? { FieldInput.optionalText(header.value(column, in: record)) }
        func take<T>(_ result: Result<T, FieldInputError>) -> T? {
            switch result {
            case .success(let value): return value
            case .failure(let error): reasons.append(error.message); return nil
            }
        }

        var client = ClientFields(name: text(.clientName),
                                  details: ClientDetails(email: EmailAddress.normalized(text(.clientEmail)),
                                                         number: text(.clientNumber), street: text(.clientStreet),
                                                         zip: text(.clientZip), city: text(.clientCity),
                                                         country: text(.clientCountry)))
        if client.name == nil && client.email == nil {
            reasons.append("The client is missing: give client_name, client_email or both.")
        }
        if let email = client.email, !EmailAddress.isValid(email) {
            reasons.append("Client email \(EchoedInput.quoted(email)) is not a valid address (expected name@example.com).")
            client.email = nil
        }
        let identifier = text(.identifier)
        let amount = take(FieldInput.amount(header.value(.amount, in: record) ?? ""))
        let currency = take(FieldInput.currencyCode(header.value(.currency, in: record) ?? ""))
        let status = text(.status).map { take(FieldInput.status($0)) } ?? .draft
        let issue = take(FieldInput.day(header.value(.issueDate, in: record) ?? "", property: "issueDate", label: "Issue date"))
        var due: CalendarDay?
        if let dueText = text(.dueDate) {
            due = take(FieldInput.day(dueText, property: "dueDate", label: "Due date"))
        } else {
            due = issue?.adding(days: InvoiceCSVColumn.defaultPaymentTermDays)
        }
        guard reasons.isEmpty, let amount, let currency, let status, let issue, let due else {
            return .failure(.init(line: record.line, reasons: reasons))
        }
        let invoice = InvoiceFields(identifier: identifier, amount: amount, currency: currency, status: status,
                                    issueDate: issue, dueDate: due, notes: text(.notes))
        return .success(InvoiceCSVRow(line: record.line, client: client, invoice: invoice))
    }
}
