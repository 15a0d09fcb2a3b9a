import ObjectGraph

/// Where an invoice is in its life, stored as its raw value. "Overdue" is not a status: it
/// is derived from the due date (see ``Invoice/isOverdue(on:)``).
public enum InvoiceStatus: String, AttributeValue, CaseIterable, Codable, Sendable, Comparable {
    /// Being written; not sent to the client yet.
    case draft
    /// Sent and waiting for payment (overdue once its due date has passed).
    case sent
    /// Paid in full.
    case paid
    /// Withdrawn; counts in no total.
    case cancelled

    /// Capitalized, for pages ("Sent").
    public var label: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }

    /// Ordered as the store sorts them: by raw value.
    public static func < (a: InvoiceStatus, b: InvoiceStatus) -> Bool { a.rawValue < b.rawValue }
}
