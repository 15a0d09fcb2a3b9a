import Foundation

/// Reads the cells of one record into typed values, collecting a reason for each cell that
/// is not a value of its kind (``reasons``), so a row is reported with all its problems.
struct InvoiceCSVCellReader {
    let record: CSVRecord
    let header: InvoiceCSVHeader
    private(set) var reasons: [String] = []

    init(record: CSVRecord, header: InvoiceCSVHeader) {
        self.record = record
        self.header = header
    }

    /// The cell's text, trimmed; nil when blank or when the file has no such column.
    func text(_ column: InvoiceCSVColumn) -> String? { FieldInput.optionalText(header.value(column, in: record)) }

    private mutating func take<T>(_ result: Result<T, FieldInputError>) -> T? {
        switch result {
        case .success(let value): return value
        case .failure(let error): reasons.append(error.message); return nil
        }
    }

    mutating func kind() -> InvoiceCSVRecordKind? {
        guard let text = text(.record) else { return .oneAmount }
        guard let kind = InvoiceCSVRecordKind(rawValue: text.lowercased()), kind != .oneAmount else {
            reasons.append("Record \(EchoedInput.quoted(text)) is not one of line, payment or invoice.")
            return nil
        }
        return kind
    }

    mutating func client() -> InvoiceCSVRow.ClientFields? {
        var client = InvoiceCSVRow.ClientFields(
            name: text(.clientName),
            details: ClientDetails(email: EmailAddress.normalized(text(.clientEmail)), number: text(.clientNumber),
                                   street: text(.clientStreet), zip: text(.clientZip), city: text(.clientCity),
                                   country: text(.clientCountry)))
        if client.name == nil && client.email == nil {
            reasons.append("The client is missing: give client_name, client_email or both.")
        }
        if let email = client.email, !EmailAddress.isValid(email) {
            reasons.append("Client email \(EchoedInput.quoted(email)) is not a valid address (expected name@example.com).")
            client.email = nil
        }
        return client
    }

    /// The `amount` cell: required in a one-amount file, else optional (the lines make it).
    mutating func amount(required: Bool) -> Decimal? {
        guard required || text(.amount) != nil else { return nil }
        return take(FieldInput.amount(header.value(.amount, in: record) ?? ""))
    }

    mutating func invoice(amount: Decimal) -> InvoiceFields? {
        let currency = take(FieldInput.currencyCode(header.value(.currency, in: record) ?? ""))
        let status = text(.status).map { take(FieldInput.status($0)) } ?? .draft
        let issue = take(FieldInput.day(header.value(.issueDate, in: record) ?? "", property: "issueDate", label: "Issue date"))
        var due: CalendarDay?
        if let dueText = text(.dueDate) {
            due = take(FieldInput.day(dueText, property: "dueDate", label: "Due date"))
        } else {
            due = issue?.adding(days: InvoiceCSVColumn.defaultPaymentTermDays)
        }
        guard let currency, let status, let issue, let due else { return nil }
        return InvoiceFields(identifier: text(.identifier), amount: amount, currency: currency, status: status,
                             issueDate: issue, dueDate: due, notes: text(.notes))
    }

    mutating func lineItem() -> LineFields? {
        guard let description = text(.lineDescription) else {
            reasons.append("A line row needs line_description.")
            return nil
        }
        let quantity = text(.lineQuantity).map { decimal($0, label: "Quantity", property: "quantity") } ?? 1
        let price = decimal(text(.lineUnitPrice) ?? "", label: "Unit price", property: "unitPrice")
        let rate = text(.lineTaxRate).map { decimal($0, label: "Tax rate", property: "taxRate") } ?? 0
        guard let quantity, let price, let rate else { return nil }
        return LineFields(description: description, quantity: quantity, unitPrice: price, taxRate: rate)
    }

    mutating func payment() -> PaymentFields? {
        let date = take(FieldInput.day(header.value(.paymentDate, in: record) ?? "", property: "date", label: "Payment date"))
        let amount = decimal(text(.paymentAmount) ?? "", label: "Payment amount", property: "amount")
        guard let date, let amount else { return nil }
        return PaymentFields(date: date, amount: amount, method: text(.paymentMethod) ?? Payment.defaultMethod,
                             note: text(.paymentNote))
    }

    /// A decimal typed like an amount, its message naming the column.
    private mutating func decimal(_ text: String, label: String, property: String) -> Decimal? {
        switch FieldInput.amount(text, property: property) {
        case .success(let value): return value
        case .failure(let error):
            reasons.append(error.message.hasPrefix("Amount ") ? label + " " + error.message.dropFirst(7) : error.message)
            return nil
        }
    }
}
