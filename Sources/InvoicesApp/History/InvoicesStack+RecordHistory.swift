import Foundation
import ObjectGraph

extension InvoicesStack {
    /// The newest `limit` saved changes of the `T` with this primary key, newest first; nil
    /// when the store has never had such an object.
    ///
    /// Reads the store's history through the coordinator (a read on one of its pooled
    /// connections), not a context: nothing is registered, nothing waits for the main queue.
    /// - Parameter labels: what forms call each property, for the page.
    public func history<T: ManagedObject>(of type: T.Type, primaryKey: Int64, labels: [String: String] = [:],
                                          limit: Int = 200) throws -> [RecordHistoryEntry]? {
        guard let id = coordinator.managedObjectID(for: type, primaryKey: primaryKey) else { return nil }
        let transactions = try coordinator.history(of: id, order: .newestFirst, limit: limit)
        guard !transactions.isEmpty else { return nil }
        return transactions.flatMap { transaction in
            transaction.changes.filter { $0.objectID == id }.map { RecordHistoryEntry(transaction, $0, labels: labels) }
        }
    }
}
