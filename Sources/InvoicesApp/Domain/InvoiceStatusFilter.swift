/// The status filter of the invoice list: a stored status, or the derived "overdue".
/// `sent` includes overdue invoices (they are sent); `overdue` is only those past due.
public enum InvoiceStatusFilter: String, CaseIterable, Sendable, Hashable, Codable {
    case draft, sent, paid, cancelled, overdue

    /// The stored status the filter selects.
    public var status: InvoiceStatus {
        switch self {
        case .draft: return .draft
        case .sent, .overdue: return .sent
        case .paid: return .paid
        case .cancelled: return .cancelled
        }
    }
}
