import Foundation
import ObjectGraph

/// The last number given to an invoice in one year (see ``InvoiceNumbering``).
///
/// Numbers are gap-free because the sequence moves in the same transaction as the invoice
/// that takes its number: two servers numbering at once both change this one row, and
/// optimistic locking on the row lets only one of them commit; the other numbers again.
public final class InvoiceSequence: ManagedObject {
    /// The calendar year of the issue dates the sequence numbers.
    @Attribute(.unique, .minimum(1), .maximum(9999)) public var year: Int = 1
    /// The last number given; the next invoice sent takes one more.
    @Attribute(.minimum(0)) public var lastNumber: Int = 0
}
