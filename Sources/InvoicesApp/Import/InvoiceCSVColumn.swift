/// The columns of an invoice CSV file: what `/invoices.csv` writes and `invoices import`
/// reads. The first record is the header and names them, in any order; names are matched
/// case-insensitively, with spaces and dashes read as underscores ("Client Name" is
/// `client_name`). Columns not listed here are ignored (and reported).
///
/// Two shapes of file are read:
///
/// - **One row per invoice** (no `record` column, or a blank one): the invoice's total is its
///   `amount`, which becomes its one line.
///
///   ```
///   client_name,client_email,identifier,amount,currency,status,issue_date,due_date,notes
///   Acme GmbH,billing@acme.de,INV-2025-00001,1250.00,EUR,sent,2025-03-01,2025-03-31,"Phase 1, design"
///   ```
/// - **One row per line item or payment**, what the export writes: `record` says which
///   (`line`, `payment`, or `invoice` for an invoice without lines), and `invoice` groups the
///   rows of one invoice (its number, or `draft-N` for a draft); the rows of one invoice follow
///   each other. The invoice's own columns are repeated on each of its rows and read from the
///   first; lines keep their order. `amount`
///   may be left blank: the lines make the total (when given, it must equal their total).
///
///   ```
///   invoice,record,identifier,status,currency,issue_date,due_date,amount,…,line_description,line_quantity,line_unit_price,line_tax_rate,payment_date,payment_amount,payment_method,payment_note
///   INV-2025-00001,line,INV-2025-00001,paid,EUR,2025-03-01,2025-03-31,119.00,…,Design,2,50,19,,,,
///   INV-2025-00001,payment,INV-2025-00001,paid,EUR,2025-03-01,2025-03-31,119.00,…,,,,,2025-03-20,119.00,Bank transfer,
///   ```
///
/// Required: `currency`, `issue_date`, `client_name` or `client_email` (or both), and
/// `amount` or `record`. A blank `identifier` is given the year's next number when the
/// invoice is not a draft. Values: amounts and quantities with a dot for decimals and no
/// grouping (`1250.00`; an amount has at most the currency's minor units), ISO 4217 codes,
/// statuses `draft`, `sent`, `paid`, `cancelled` (blank: `draft`), tax rates in percent,
/// dates `YYYY-MM-DD` (a blank due date is the issue date plus 30 days). A cell the export
/// protected against spreadsheet formulas (a leading `'`, see `CSVCell`) is read back as it was.
///
/// The `client_*` columns other than name and email are used only for clients the import
/// creates; an existing client matched by email or name is not changed.
public enum InvoiceCSVColumn: String, CaseIterable, Sendable {
    case invoice
    case record
    case identifier
    case status
    case currency
    case issueDate = "issue_date"
    case dueDate = "due_date"
    case amount
    case notes
    case clientName = "client_name"
    case clientEmail = "client_email"
    case clientNumber = "client_number"
    case clientStreet = "client_street"
    case clientZip = "client_zip"
    case clientCity = "client_city"
    case clientCountry = "client_country"
    case lineDescription = "line_description"
    case lineQuantity = "line_quantity"
    case lineUnitPrice = "line_unit_price"
    case lineTaxRate = "line_tax_rate"
    case paymentDate = "payment_date"
    case paymentAmount = "payment_amount"
    case paymentMethod = "payment_method"
    case paymentNote = "payment_note"

    /// The columns every file must have (plus `client_name` or `client_email`, and `amount`
    /// or `record`).
    public static let required: [InvoiceCSVColumn] = [.currency, .issueDate]

    /// The columns of a client (the client's own CSV, `/clients.csv`, has these).
    public static let clientColumns: [InvoiceCSVColumn] = [
        .clientName, .clientEmail, .clientNumber, .clientStreet, .clientZip, .clientCity, .clientCountry,
    ]

    /// Days from the issue date to a due date left blank.
    public static let defaultPaymentTermDays = 30

    /// Every column, in the export's order.
    public static var exampleHeader: String { allCases.map(\.rawValue).joined(separator: ",") }

    /// The column a header cell names, if any.
    init?(header: String) {
        let normalized = header.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            .replacingOccurrences(of: " ", with: "_").replacingOccurrences(of: "-", with: "_")
        self.init(rawValue: normalized)
    }
}

/// What one row of an invoice CSV file holds (the `record` column).
enum InvoiceCSVRecordKind: String, Sendable {
    /// A file of one row per invoice: the amount is its one line.
    case oneAmount = ""
    /// An invoice without lines.
    case invoice
    /// One line item of the invoice.
    case line
    /// One payment of the invoice.
    case payment
}
