import Foundation
import ObjectGraph
import Synchronization

/// The contexts of one kind that are alive now (the import contexts of an ``InvoicesStack``),
/// held weakly, with when each was made, so the inspector can list them while they run.
///
/// `Sendable`: `entries` is only touched while its mutex is held.
public final class ContextRegistry: Sendable {
    /// A live context and when it was made.
    public struct Entry: Sendable {
        public let context: ManagedObjectContext
        public let createdAt: Date
    }

    private struct WeakEntry: @unchecked Sendable {
        // @unchecked Sendable: a weak reference to a Sendable class, only read and cleared.
        weak var context: ManagedObjectContext?
        let createdAt: Date
    }

    private let entries = Mutex<[WeakEntry]>([])

    public init() {}

    /// Remembers `context` (weakly) until it goes away.
    public func add(_ context: ManagedObjectContext) {
        entries.withLock { entries in
            entries.removeAll { $0.context == nil }
            entries.append(WeakEntry(context: context, createdAt: Date()))
        }
    }

    /// The contexts still alive, oldest first.
    public var live: [Entry] {
        entries.withLock { entries in
            entries.removeAll { $0.context == nil }
            return entries.compactMap { entry in entry.context.map { Entry(context: $0, createdAt: entry.createdAt) } }
        }
    }
}
