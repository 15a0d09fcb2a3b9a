import Foundation
import ObjectGraph

/// What ``InvoiceNumbering/assignNumbers(in:)`` changed in a context, as values, so that a
/// save refused because another server numbered first can take it back and number again.
struct NumberAssignment: Sendable {
    /// The numbers given.
    var numbers: Set<String> = []
    /// The sequences read from the store and moved on (their rows are what two servers race
    /// for).
    var movedSequences: Set<ObjectID> = []
    /// Whether a sequence was made for a year that had none.
    var madeSequence = false

    /// Whether the context's sequences were left as they were.
    var isEmpty: Bool { numbers.isEmpty && movedSequences.isEmpty && !madeSequence }

    /// Whether `conflicts` are all on sequences this assignment moved: another server took
    /// numbers meanwhile, and numbering again from the sequences' new values resolves it.
    func explains(_ conflicts: [MergeConflict]) -> Bool {
        !conflicts.isEmpty && conflicts.allSatisfy { movedSequences.contains($0.objectID) }
    }

    /// Whether `violation` comes from numbering: another server made the same year's
    /// sequence, or holds a number given.
    func explains(_ violation: UniquenessViolation) -> Bool {
        if violation.entity == String(describing: InvoiceSequence.self) { return madeSequence }
        return violation.entity == String(describing: Invoice.self) && violation.properties == ["identifier"]
            && violation.values.contains { if case .string(let value) = $0 { numbers.contains(value) } else { false } }
    }

    /// Takes the assignment back in `context` (on its queue): the invoices lose the numbers
    /// given, made sequences go, and moved ones are read again from the context's parent.
    func revert(in context: ManagedObjectContext) {
        guard !isEmpty else { return }
        for case let invoice as Invoice in context.insertedObjects.union(context.updatedObjects) {
            if let number = invoice.identifier, numbers.contains(number) { invoice.identifier = nil }
        }
        for case let sequence as InvoiceSequence in context.insertedObjects { context.delete(sequence) }
        for case let sequence as InvoiceSequence in context.updatedObjects { context.refresh(sequence, mergeChanges: false) }
    }
}
