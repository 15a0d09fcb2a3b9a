import Foundation
import ObjectGraph

/// Gives invoices their numbers when they leave draft, from a per-year ``InvoiceSequence``,
/// written in a ``InvoiceNumberFormat``.
///
/// Call ``assignNumbers(in:)`` on the saving context just before its save: the sequence's
/// row is changed in the same save, so it reaches the store in the same transaction as the
/// status change. When another server numbered first, the save is refused (a conflict on the
/// sequence's row, or a duplicate year); ``NumberAssignment/revert(in:)`` takes the numbers
/// back and the caller numbers again from the sequence's new value. No number is skipped.
public struct InvoiceNumbering: Sendable, Hashable {
    /// How numbers are written.
    public let format: InvoiceNumberFormat

    public init(format: InvoiceNumberFormat = .standard) {
        self.format = format
    }

    /// Numbers the invoices of `context` that have left draft without a number, in issue
    /// order, and moves a year's sequence past a number typed in the format (an import's
    /// `INV-2026-00042` makes the next one 43). Runs on the context's queue.
    /// - Throws: what fetching the sequences throws.
    func assignNumbers(in context: ManagedObjectContext) throws -> NumberAssignment {
        var assignment = NumberAssignment()
        var sequences: [Int: InvoiceSequence] = [:]
        let invoices = context.insertedObjects.union(context.updatedObjects)
            .compactMap { $0 as? Invoice }.filter { !$0.isDeleted }
        for invoice in invoices {
            guard let identifier = invoice.identifier, invoice.isInserted || invoice.changedValues()["identifier"] != nil,
                  let typed = format.sequence(of: identifier, year: invoice.issueDay.year) else { continue }
            let sequence = try self.sequence(for: invoice.issueDay.year, in: context, cache: &sequences, assignment: &assignment)
            if typed > sequence.lastNumber { sequence.lastNumber = typed }
        }
        // In issue order; the ID only breaks ties, so it is written once per invoice, not per comparison.
        let unnumbered = invoices.filter { $0.identifier == nil && $0.status != .draft }
            .map { (date: $0.issueDate, id: $0.objectID.description, invoice: $0) }
            .sorted { ($0.date, $0.id) < ($1.date, $1.id) }.map(\.invoice)
        for invoice in unnumbered {
            let year = invoice.issueDay.year
            let sequence = try self.sequence(for: year, in: context, cache: &sequences, assignment: &assignment)
            var number: String
            // A number typed by hand outside the sequence's reach (another format's width,
            // say) is stepped over rather than given twice.
            repeat {
                sequence.lastNumber += 1
                number = format.number(year: year, sequence: sequence.lastNumber)
            } while try isTaken(number, in: context)
            invoice.identifier = number
            assignment.numbers.insert(number)
        }
        return assignment
    }

    /// The year's sequence, read once per assignment; made when the year has none, starting
    /// after the highest number of that year already written in the format.
    private func sequence(for year: Int, in context: ManagedObjectContext, cache: inout [Int: InvoiceSequence],
                          assignment: inout NumberAssignment) throws -> InvoiceSequence {
        if let known = cache[year] { return known }
        let request = FetchRequest<InvoiceSequence>(predicate: #Predicate { $0.year == year }, fetchLimit: 1)
        let sequence: InvoiceSequence
        if let existing = try context.fetch(request).first {
            sequence = existing
            assignment.movedSequences.insert(existing.objectID)
        } else {
            sequence = InvoiceSequence(context: context)
            sequence.year = year
            sequence.lastNumber = try highestNumber(of: year, in: context)
            assignment.madeSequence = true
        }
        cache[year] = sequence
        return sequence
    }

    /// The highest place of `year` held by a number in the format: what a file numbered by
    /// hand (or by an earlier version) already used.
    private func highestNumber(of year: Int, in context: ManagedObjectContext) throws -> Int {
        let stem = format.stem(year: year)
        let request = FetchRequest<Invoice>(predicate: #Predicate { invoice in
            invoice.identifier.flatMap { $0.starts(with: stem) } ?? false
        })
        return try context.fetch(request).compactMap { invoice in
            invoice.identifier.flatMap { format.sequence(of: $0, year: year) }
        }.max() ?? 0
    }

    private func isTaken(_ number: String, in context: ManagedObjectContext) throws -> Bool {
        let request = FetchRequest<Invoice>(predicate: #Predicate { $0.identifier == number }, fetchLimit: 1)
        return try context.count(for: request) > 0
    }
}
