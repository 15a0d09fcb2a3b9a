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
    let kind: InvoiceCSVRecordKind
    /// The `invoice` column: which invoice the row belongs to (nil in a one-amount file).
    let groupKey: String?
    let client: ClientFields
    let invoice: InvoiceFields
    /// Whether the `amount` cell held a value (a file of line rows may leave it blank).
    let hasAmount: Bool
    /// The row's line item (`line` rows).
    let lineItem: LineFields?
    /// The row's payment (`payment` rows).
    let payment: PaymentFields?

    subscript<T>(dynamicMember keyPath: KeyPath<InvoiceFields, T>) -> T { invoice[keyPath: keyPath] }

    /// Reads a record; the failure lists every problem of the row.
    static func read(_ record: CSVRecord, header: InvoiceCSVHeader) -> Result<InvoiceCSVRow, ImportReport.SkippedRow> {
        if record.fields.count != header.fieldCount {
            return .failure(.init(line: record.line, reasons: [
                "The row has \(record.fields.count) field\(record.fields.count == 1 ? "" : "s"), the header \(header.fieldCount); check for a missing or extra comma, or an unquoted comma inside a value."]))
        }
        var reader = InvoiceCSVCellReader(record: record, header: header)
        let kind = reader.kind()
        let client = reader.client()
        let amount = reader.amount(required: kind == .oneAmount)
        let invoice = reader.invoice(amount: amount ?? 0)
        let lineItem = kind == .line ? reader.lineItem() : nil
        let payment = kind == .payment ? reader.payment() : nil
        guard reader.reasons.isEmpty, let kind, let client, let invoice,
              kind != .line || lineItem != nil, kind != .payment || payment != nil else {
            return .failure(.init(line: record.line, reasons: reader.reasons))
        }
        return .success(InvoiceCSVRow(line: record.line, kind: kind, groupKey: reader.text(.invoice), client: client,
                                      invoice: invoice, hasAmount: amount != nil, lineItem: lineItem, payment: payment))
    }
}
