/// The columns of an invoice CSV file. The first record is the header and names them, in any
/// order; names are matched case-insensitively, with spaces and dashes read as underscores
/// ("Client Name" is `client_name`). Columns not listed here are ignored (and reported).
///
/// ```
/// client_name,client_email,client_city,client_country,identifier,amount,currency,status,issue_date,due_date,notes
/// Acme GmbH,billing@acme.de,Berlin,Germany,INV-2025-001,1250.00,EUR,sent,2025-03-01,2025-03-31,"Phase 1, design"
/// ```
///
/// Required: `identifier`, `amount`, `currency`, `issue_date`, and `client_name` or
/// `client_email` (or both). Values: amounts with a dot for decimals and no grouping
/// (`1250.00`; at most the currency's minor units), ISO 4217 codes, statuses `draft`,
/// `sent`, `paid`, `cancelled` (blank: `draft`), dates `YYYY-MM-DD` (a blank due date is
/// the issue date plus 30 days).
///
/// The `client_*` columns other than name and email are used only for clients the import
/// creates; an existing client matched by email or name is not changed.
public enum InvoiceCSVColumn: String, CaseIterable, Sendable {
    case clientName = "client_name"
    case clientEmail = "client_email"
    case clientNumber = "client_number"
    case clientStreet = "client_street"
    case clientZip = "client_zip"
    case clientCity = "client_city"
    case clientCountry = "client_country"
    case identifier
    case amount
    case currency
    case status
    case issueDate = "issue_date"
    case dueDate = "due_date"
    case notes

    /// The columns every file must have (plus `client_name` or `client_email`).
    public static let required: [InvoiceCSVColumn] = [.identifier, .amount, .currency, .issueDate]

    /// Days from the issue date to a due date left blank.
    public static let defaultPaymentTermDays = 30

    /// A header like the one in the documentation, every column in order.
    public static var exampleHeader: String { allCases.map(\.rawValue).joined(separator: ",") }

    /// The column a header cell names, if any.
    init?(header: String) {
        let normalized = header.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            .replacingOccurrences(of: " ", with: "_").replacingOccurrences(of: "-", with: "_")
        self.init(rawValue: normalized)
    }
}
