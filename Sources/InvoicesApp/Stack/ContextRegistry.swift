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

    private struct WeakEntry: Sendable {
        let context: WeakReference<ManagedObjectContext>
        let createdAt: Date
    }

    private let entries = Mutex<[WeakEntry]>([])

    public init() {}

    /// Remembers `context` (weakly) until it goes away.
    public func add(_ context: ManagedObjectContext) {
        entries.withLock { entries in
            entries.removeAll { $0.context.object == nil }
            entries.append(WeakEntry(context: WeakReference(context), createdAt: Date()))
        }
    }

    /// The contexts still alive, oldest first.
    public var live: [Entry] {
        entries.withLock { entries in
            entries.removeAll { $0.context.object == nil }
            return entries.compactMap { entry in entry.context.object.map { Entry(context: $0, createdAt: entry.createdAt) } }
        }
    }
}
