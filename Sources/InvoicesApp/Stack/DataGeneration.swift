import Foundation
import ObjectGraph
import Synchronization

/// A value that changes whenever what the main context shows may have changed: the key that
/// lets a page rendered earlier be served again (see ``PageCache``).
///
/// Two parts:
/// - `local` counts the changes of this process's contexts that pages can see: main's and the
///   writer's changes and saves (a form saved into main, a delete, a merge), every save of a
///   root context on the stack's coordinator (the writer, import contexts, demo data), and
///   the merges of ``InvoicesStack/mergeImportSave(_:)``. It is bumped synchronously by the
///   contexts' notifications, on their queues, before the change's block ends: a request
///   answered after a save can never read the generation from before it.
/// - `store` is the store's change signal (``PersistentStoreCoordinator/storeChangeSignal()``;
///   on SQLite, `data_version`; on PostgreSQL, a count of the `NOTIFY`s every commit sends):
///   commits by other processes and servers, which this process hears of only through the
///   store. A kept page is served again only while it has not changed.
/// - `merged` counts the coordinator's announcements of other processes' commits (posted once
///   its row cache dropped the rows they changed) and their merges into main and the writer
///   (the history consumer refreshing objects they changed). `store` alone is not enough: it
///   moves as the commit lands, and a page rendered before the announcement may read the old
///   row from the cache, then be kept under the new `store` for good. Like `store`, it is news from
///   elsewhere: a page may be served for a moment while it renders again (``PageCache``),
///   so an import in another process does not make every reader wait for the main queue.
///
/// A reader takes the generation *before* reading the data: the data is then at least as new
/// as the generation it is filed under (newer at worst, never older).
public struct Generation: Sendable, Hashable, CustomStringConvertible {
    public let local: UInt64
    public let store: Int64
    public let merged: UInt64

    public init(local: UInt64, store: Int64, merged: UInt64 = 0) {
        self.local = local
        self.store = store
        self.merged = merged
    }

    public var description: String { "\(local).\(store).\(merged)" }
}

/// Counts the changes that make up ``Generation``.
///
/// `Sendable`: the counter is atomic; the notification tokens are only touched under their
/// mutex (to remove the observers at deinit).
final class DataGeneration: Sendable {
    private let local = Atomic<UInt64>(0)
    private let merged = Atomic<UInt64>(0)
    private let store: (any StoreChangeSignal)?
    /// A store whose commits cannot be watched (its signal could not be made): then every
    /// generation is new, and no page is ever served again.
    private let blind: Bool
    private struct Tokens: @unchecked Sendable {
        // @unchecked Sendable: NotificationCenter tokens are opaque handles, only passed back
        // to `removeObserver`, under the enclosing mutex.
        var list: [any NSObjectProtocol] = []
    }
    private let tokens = Mutex(Tokens())

    /// Watches `main` and `writer`, every root context of `coordinator`, and its store's
    /// change signal (one that never changes for an in-memory store, which no other process
    /// can write).
    init(main: ManagedObjectContext, writer: ManagedObjectContext, coordinator: PersistentStoreCoordinator) {
        let signal: (any StoreChangeSignal)?
        do { signal = try coordinator.storeChangeSignal() } catch { signal = nil }
        store = signal
        blind = signal == nil
        let center = NotificationCenter.default
        var list: [any NSObjectProtocol] = []
        // Scratchpads' own changes (a visitor typing into a form) are not seen by pages:
        // only the contexts pages read through, and the roots that write the file, count.
        let counts: @Sendable (Notification) -> Void = { [weak self] notification in
            guard let self, let context = notification.object as? ManagedObjectContext else { return }
            // A merge refreshes objects changed elsewhere; this process's own changes and
            // saves post inserted/updated/deleted (and every save here also bumps `local`).
            if (context === main || context === writer),
               notification.userInfo?[ManagedObjectContext.ChangeKey.refreshed.rawValue] != nil {
                merged.add(1, ordering: .acquiringAndReleasing)
            } else if context === main || context === writer
                || (context.parent == nil && context.persistentStoreCoordinator === coordinator) {
                bump()
            }
        }
        for name in [ManagedObjectContext.objectsDidChangeNotification, ManagedObjectContext.didSaveNotification] {
            list.append(center.addObserver(forName: name, object: nil, queue: nil, using: counts))
        }
        list.append(center.addObserver(forName: PersistentStoreCoordinator.remoteChangeNotification, object: coordinator,
                                       queue: nil) { [weak self] _ in
            self?.merged.add(1, ordering: .acquiringAndReleasing)
        })
        tokens.withLock { $0.list = list }
    }

    deinit {
        let list = tokens.withLock { $0.list }
        for token in list { NotificationCenter.default.removeObserver(token) }
    }

    /// The generation now.
    var current: Generation {
        if blind { bump() }
        // Local first: a change counted after this load shows in a later generation anyway.
        let local = local.load(ordering: .acquiring)
        let merged = merged.load(ordering: .acquiring)
        return Generation(local: local, store: store?.current ?? 0, merged: merged)
    }

    /// Counts a change that posts no notification (a merge of inserted objects only).
    func bump() {
        local.add(1, ordering: .acquiringAndReleasing)
    }
}
