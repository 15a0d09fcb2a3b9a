import Foundation

/// Batch requests run from a context: the SQL goes straight to the store (not through the
/// parent chain), with the context's `transactionAuthor` and `name` in persistent history,
/// and the result is merged into the context's chain, root first, so every context from the
/// root down to this one shows it (and their children that merge from their parent do too).
///
/// Call these on the context's queue. Pending changes are not saved first; a pending edit of
/// a row the batch changed is kept on top of the new values and meets the row's new version
/// at save.
extension ManagedObjectContext {
    @discardableResult
    public func execute<Entity: ManagedObject>(_ request: BatchInsertRequest<Entity>) throws -> BatchResult {
        let result = try persistentStoreCoordinator.execute(request, author: transactionAuthor, contextName: name)
        mergeBatchIntoChain(result.changes)
        return result
    }

    @discardableResult
    public func execute<Entity: ManagedObject>(_ request: BatchUpdateRequest<Entity>) throws -> BatchResult {
        let result = try persistentStoreCoordinator.execute(request, author: transactionAuthor, contextName: name)
        mergeBatchIntoChain(result.changes)
        return result
    }

    @discardableResult
    public func execute<Entity: ManagedObject>(_ request: BatchDeleteRequest<Entity>) throws -> BatchResult {
        let result = try persistentStoreCoordinator.execute(request, author: transactionAuthor, contextName: name)
        mergeBatchIntoChain(result.changes)
        return result
    }

    private func mergeBatchIntoChain(_ changes: ChangeSet) {
        guard !changes.isEmpty else { return }
        var chain: [ManagedObjectContext] = [self]
        while let parent = chain.last?.parent { chain.append(parent) }
        let rootFirst = Array(chain.reversed())
        for (n, context) in rootFirst.enumerated() {
            // Ancestors merge in a brief hop onto their queues (as a child's fetch does); the
            // next context down merges right after, so it is not also told as a child.
            let next = n + 1 < rootFirst.count ? rootFirst[n + 1] : nil
            context.performAndWait {
                context.merge(inserted: changes.inserted, updated: changes.updated, deleted: changes.deleted,
                              origin: .batch, from: changes.context, skippedChild: next)
            }
        }
    }
}
