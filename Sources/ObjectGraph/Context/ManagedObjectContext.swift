import Foundation
import Synchronization

/// A scratchpad of managed objects: fetches, changes, and saves them to its parent.
///
/// A context runs on one queue. `.privateQueue` contexts own a serial queue; `.mainQueue`
/// contexts use the process's main queue (a server calls `dispatchMain()`). Every use of a
/// context and its objects happens on that queue: inside ``perform(_:)``,
/// ``performAndWait(_:)`` or `await context.perform { }`.
///
/// ```swift
/// let writer = ManagedObjectContext(.privateQueue, coordinator: coordinator)
/// let id = try await writer.perform {
///     let client = Client(context: writer)
///     client.name = "Acme"
///     try writer.save()
///     return client.objectID          // IDs cross queues; objects never do
/// }
/// ```
///
/// `@unchecked Sendable`: the context itself may be passed anywhere (to schedule blocks on
/// it); all of its mutable state is owned by its queue, except `registry`, guarded by
/// `registryLock` because objects unregister themselves from `deinit`.
public final class ManagedObjectContext: @unchecked Sendable, CustomStringConvertible {
    /// Which queue a context runs on.
    public enum ConcurrencyType: Sendable { case privateQueue, mainQueue }
    /// How `await perform` schedules its block.
    public enum ScheduledTaskType: Sendable {
        /// Run inline when already on the context's queue, else enqueue.
        case immediate
        /// Always enqueue behind the blocks already scheduled.
        case enqueued
    }

    public let concurrencyType: ConcurrencyType
    /// The parent context, for nested contexts; nil for a context on the coordinator.
    public let parent: ManagedObjectContext?
    /// The coordinator at the root of this context's chain.
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// The model of the coordinator.
    public var model: ManagedObjectModel { persistentStoreCoordinator.model }

    let queue: DispatchQueue
    private let nameStorage: Locked<String?>

    /// A name for logs, the inspector and persistent history.
    public var name: String? {
        get { nameStorage.withLock { $0 } }
        set { nameStorage.withLock { $0 = newValue } }
    }

    private let authorStorage = Locked<String?>(nil)
    /// Who writes: recorded with each transaction this context saves to the store (root
    /// contexts) in persistent history, so a history consumer can tell, for example, the
    /// app's own writes from an importer's.
    public var transactionAuthor: String? {
        get { authorStorage.withLock { $0 } }
        set { authorStorage.withLock { $0 = newValue } }
    }

    /// How conflicts found at save are resolved. Owned by the context's queue.
    public var mergePolicy: MergePolicy = .error

    private let mergeFromParentStorage: Locked<Bool>
    /// Whether the context merges what is saved into (or by) its parent: other children's
    /// saves and the parent's own saves refresh the objects registered here. On by default
    /// for contexts made with `newChildContext()` (Core Data's default is off, and users
    /// keep meeting stale children); off for the other initializers.
    public var automaticallyMergesChangesFromParent: Bool {
        get { mergeFromParentStorage.withLock { $0 } }
        set { mergeFromParentStorage.withLock { $0 = newValue } }
    }

    /// Whether the context keeps every registered object alive (not just changed ones). A
    /// scratchpad must: it remembers the parent's value of each property it read, which is
    /// how a save finds that the parent changed it meanwhile. On by default for contexts made
    /// with `newChildContext()`. Owned by the context's queue.
    public var retainsRegisteredObjects = false {
        didSet {
            if retainsRegisteredObjects {
                for object in registeredObjects { retained[object.objectID] = object }
            } else {
                retained.removeAll()
            }
        }
    }
    /// Strong references when `retainsRegisteredObjects` (queue-owned).
    var retained: [ObjectID: ManagedObject] = [:]

    /// Children, held weakly, so saves can re-key and refresh them. Guarded by its mutex
    /// (children register from any thread).
    let childrenStorage = Locked<[WeakReference<ManagedObjectContext>]>([])
    /// Orders the saves through to the store (`saveToStore()`, `save(into:)`) of the contexts
    /// whose root this is: one at a time, in arrival order. Used on root contexts only.
    let saveThroughGate = AsyncSerialGate()
    /// This context's blocks waiting for a place among the coordinator's nested blocks.
    let nestedBlocks = NestedBlockQueue()
    /// Subscribers of `changes`. Guarded by its mutex.
    let changeSubscribers = Locked<[UUID: AsyncStream<ChangeSet>.Continuation]>([:])

    // MARK: Queue-owned state
    let registryLock = Locked()
    /// Registered objects, held weakly: an unchanged object lives as long as the app uses it.
    var registry = ObjectIDTable<Unmanaged<ManagedObject>>()
    /// Row cache entries of objects that went away, released in batches (guarded by
    /// `registryLock`): an object's deinit then costs one lock, not two.
    var pendingRowReleases: [ObjectID] = []
    /// Temporary IDs of objects that became permanent, so the old ID keeps resolving here
    /// (guarded by `registryLock`).
    var aliases = AliasTable()
    /// The unsaved changes (queue-owned): one value, cleared in one way.
    var pending = PendingChanges() {
        didSet { mayHavePendingChanges.store(!pending.holdsNothing, ordering: .releasing) }
    }
    /// False only while `pending` holds nothing, readable from any thread: a child's read
    /// then needs no hop onto this context's queue for its unsaved changes (there are none).
    /// A change made meanwhile is one the read did not see, as if it had run a moment earlier.
    let mayHavePendingChanges = Atomic<Bool>(false)
    /// While this context's save through to the store is under way: its objects, by the ID
    /// the save knows them by, so one deleted meanwhile (and so unregistered) is still found
    /// when the save settles (queue-owned).
    var objectsBeingSaved: [ObjectID: ManagedObject] = [:]

    /// A context whose parent is the coordinator: its saves write to the store.
    public init(_ concurrencyType: ConcurrencyType, coordinator: PersistentStoreCoordinator, name: String? = nil) {
        self.concurrencyType = concurrencyType
        self.parent = nil
        self.persistentStoreCoordinator = coordinator
        self.nameStorage = Locked(name)
        self.mergeFromParentStorage = Locked(false)
        self.queue = Self.makeQueue(concurrencyType, name: name)
    }

    /// A nested context: its saves go into `parent`, never to the store.
    public init(_ concurrencyType: ConcurrencyType, parent: ManagedObjectContext, name: String? = nil) {
        self.concurrencyType = concurrencyType
        self.parent = parent
        self.persistentStoreCoordinator = parent.persistentStoreCoordinator
        self.nameStorage = Locked(name)
        self.mergeFromParentStorage = Locked(false)
        self.queue = Self.makeQueue(concurrencyType, name: name)
        parent.childrenStorage.withLock { children in
            children.removeAll { $0.object == nil }
            children.append(WeakReference(self))
        }
    }

    /// A child of this context (private queue unless said otherwise) that merges this
    /// context's saves and retains the objects it reads.
    ///
    /// Merging suits children that show data. A child that edits over several steps (a form)
    /// should set `automaticallyMergesChangesFromParent = false`: a merge re-bases what it
    /// read, so a change made meanwhile would no longer be reported as a conflict.
    public func newChildContext(_ concurrencyType: ConcurrencyType = .privateQueue, name: String? = nil) -> ManagedObjectContext {
        let child = ManagedObjectContext(concurrencyType, parent: self, name: name)
        child.automaticallyMergesChangesFromParent = true
        child.retainsRegisteredObjects = true
        return child
    }

    /// The live children of this context.
    public var childContexts: [ManagedObjectContext] {
        childrenStorage.withLock { $0.compactMap(\.object) }
    }

    private static func makeQueue(_ type: ConcurrencyType, name: String?) -> DispatchQueue {
        switch type {
        case .mainQueue: return .main
        case .privateQueue: return DispatchQueue(label: "ObjectGraph.context.\(name ?? "private")")
        }
    }

    /// The root of this context's chain (itself for a context on the coordinator).
    var root: ManagedObjectContext {
        var context = self
        while let parent = context.parent { context = parent }
        return context
    }

    var debugName: String { name.map { "\"\($0)\"" } ?? "<unnamed \(ObjectIdentifier(self).debugDescription)>" }

    public var description: String {
        "<ManagedObjectContext \(debugName) \(concurrencyType == .mainQueue ? "main" : "private")>"
    }

    deinit {
        for continuation in changeSubscribers.withLock({ Array($0.values) }) { continuation.finish() }
        persistentStoreCoordinator.rowCache.release(pendingRowReleases)
        // Objects still around outlive their context: detach them and drop their cache entries.
        let objects = registry.values
        for unmanaged in objects {
            let object = unmanaged.takeUnretainedValue()
            if object.holdsRowCacheEntry {
                object.holdsRowCacheEntry = false
                persistentStoreCoordinator.rowCache.release(object.objectID)
            }
        }
    }

    // MARK: Queue confinement

    /// Whether the calling code may use this context now: a block of it runs on this thread,
    /// or it is a main-queue context and this is the main thread.
    var isOnQueue: Bool {
        if concurrencyType == .mainQueue && Self.isOnMainQueue { return true }
        return ThreadState.current.activeContexts.contains(ObjectIdentifier(self))
    }

    /// On Linux, `dispatchMain()` ends the main thread and the main queue is drained by a
    /// worker thread, so `Thread.isMainThread` is not enough: the main queue carries a
    /// queue-specific marker.
    static var isOnMainQueue: Bool {
        _ = mainQueueMarked
        return Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueKey) == true
    }

    private static let mainQueueKey = DispatchSpecificKey<Bool>()
    private static let mainQueueMarked: Bool = {
        DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)
        return true
    }()

    private func enter() { ThreadState.current.activeContexts.append(ObjectIdentifier(self)) }
    private func leave() { _ = ThreadState.current.activeContexts.popLast() }

    /// Runs `block` on the context's queue, then processes pending changes.
    private func run<T, E: Error>(_ block: () throws(E) -> T) throws(E) -> T {
        enter()
        defer {
            processPendingChanges()
            flushRowReleases()
            leave()
        }
        return try block()
    }

    /// Schedules `block` on the context's queue and returns at once (FIFO).
    public func perform(_ block: @escaping @Sendable () -> Void) {
        enqueue { self.run(block) }
    }

    /// Puts `work` on the queue, in order. A nested private-queue context's blocks first take
    /// a place in the coordinator's ``BlockLimiter`` (they may wait on their ancestors' queues,
    /// each such wait holding a thread); a block waiting for a place holds none.
    private func enqueue(_ work: @escaping @Sendable () -> Void) {
        guard parent != nil, concurrencyType == .privateQueue else {
            queue.async(execute: work)
            return
        }
        nestedBlocks.submit(work, to: queue, limiter: persistentStoreCoordinator.nestedBlocks)
    }

    /// Runs `block` on the context's queue and waits for it. Reentrant: called from inside
    /// a block of the same context, it runs inline. It holds the calling thread until the
    /// block has run: from `async` code or a Dispatch queue, prefer `await perform`. (It does
    /// not wait for blocks of a nested context still waiting for a place in the coordinator's
    /// limit of concurrent nested blocks: those are not on the queue yet.)
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        if isOnQueue { return try run(block) }
        return try queue.sync { try run(block) }
    }

    /// Runs `block` on the context's queue and returns its value, rethrowing its error.
    ///
    /// The result must be `Sendable`: return object IDs or values, never managed objects.
    /// With `.immediate` (the default), a caller already on the context's queue (main-actor
    /// code and a `.mainQueue` context) runs the block inline, ahead of blocks scheduled
    /// earlier; `.enqueued` always waits its turn. The function runs on the caller's executor
    /// (`nonisolated(nonsending)`), so that check sees where the caller really is.
    public nonisolated(nonsending) func perform<T: Sendable, E: Error>(
        schedule: ScheduledTaskType = .immediate,
        _ block: @escaping @Sendable () throws(E) -> T
    ) async throws(E) -> T {
        if schedule == .immediate && isOnQueue {
            return try run(block)
        }
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            enqueue {
                let result = self.run { () -> Result<T, E> in
                    do throws(E) { return .success(try block()) } catch { return .failure(error) }
                }
                continuation.resume(returning: result)
            }
        }
        return try result.get()
    }
}
