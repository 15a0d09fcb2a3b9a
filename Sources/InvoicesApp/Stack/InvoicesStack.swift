import Foundation
import Logging
import ObjectGraph
import ObjectGraphPostgreSQL
import Synchronization
import WebServer

/// The contexts of the Invoices application over one SQLite file (see ARCHITECTURE.md):
///
/// ```
/// scratchpads (private, children of main) ──save──▶ main (main queue) ──▶ writer (private, root) ──▶ store
///                                import contexts (private, on the coordinator) ──────────────────────▶ store
/// ```
///
/// - ``writer``: the root context. Its saves are the only ones of the nested chain that reach
///   the file, on its private queue, so disk I/O never runs on the main queue.
/// - ``main``: every page reads here (``clientPage(_:)`` and friends run on it).
/// - ``newScratchpad(name:)``: one per open edit form; dropping it discards the edits,
///   ``save(_:policy:)`` saves it through main and the writer to the file as one unit.
/// - ``newImportContext(name:)``: independent of the chain, for CSV imports and demo data;
///   after it saves, ``mergeImportSave(_:)`` brings the changes to writer and main.
///
/// `Sendable`: every property is immutable and itself `Sendable` (contexts schedule their
/// own work on their own queues).
public final class InvoicesStack: Sendable {
    public let coordinator: PersistentStoreCoordinator
    public let writer: ManagedObjectContext
    public let main: ManagedObjectContext
    /// Where the store lives.
    public let store: StoreLocation
    /// The SQLite file (`nil` for a PostgreSQL or an in-memory stack).
    public var storeURL: URL? { store.fileURL }
    /// The PostgreSQL store, when the stack has one: its locks keep concurrent first starts
    /// of several servers from seeding twice.
    let sharedStore: PostgreSQLStore?
    /// The import contexts alive now (the inspector lists them while they run).
    public let importContexts = ContextRegistry()
    /// Which server this is among those sharing the store (``ServerName``).
    public let serverName = ServerName()
    /// Counts the changes pages can see (see ``Generation``).
    let changes: DataGeneration
    /// Invoice lists' counts and totals, kept for the generation they were read at.
    let listSummaries = ListSummaryCache()
    /// When the writer's changes reach the file, and the changes set aside on the way.
    let persistence: WriterPersistence
    let logger: Logger

    /// Opens (or creates) the database at `url`, creating its folder if needed.
    /// - Parameters:
    ///   - persist: when saves reach the file: before they are acknowledged, or in the
    ///     writer's next flush.
    ///   - busyTimeout: how long a write waits for another process's lock before the save
    ///     answers "busy".
    /// - Throws: ``StackError`` saying what to do when the file cannot be used.
    public convenience init(storeURL url: URL, persist: PersistMode = .immediate, busyTimeout: TimeInterval = 5,
                            logger: Logger = Logger(label: "invoices")) throws(StackError) {
        try self.init(storeURL: url, persist: persist, busyTimeout: busyTimeout, logger: logger, model: nil)
    }

    /// The same over another model than ``InvoicesModel`` (one with more entities, for tests),
    /// with deferred flushes timed by `timekeeper` (a test's clock).
    convenience init(storeURL url: URL, persist: PersistMode = .immediate, busyTimeout: TimeInterval = 5,
                     logger: Logger = Logger(label: "invoices"), model: ManagedObjectModel?,
                     timekeeper: Timekeeper = .continuous) throws(StackError) {
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .folder(path: folder.path, reason: error.localizedDescription)
        }
        // History and remote-change notifications: what another process (`invoices import`)
        // commits reaches writer and main through ``startMergingRemoteChanges(as:)``.
        var description = PersistentStoreDescription.sqlite(at: url, busyTimeout: busyTimeout, recordsHistory: true,
                                                            postsRemoteChangeNotifications: true)
        // Page reads run on the readers at hundreds a second: 16 MB of pages each, rather than
        // SQLite's 2 MB, spares most of their reads a system call and a copy (about 10% more
        // requests/s in the distinct-reads benchmark at 100,000 invoices).
        description.readerCacheSize = 16 << 20
        // A batch of an import touches more index pages than 2 MB holds (see writerCacheSize).
        description.writerCacheSize = 16 << 20
        // One reader per nested block that may run at once: a page read never waits for one.
        description.maxReaders = Self.concurrentNestedBlocks
        try self.init(store: .sqlite(url), persist: persist, logger: logger, model: model, timekeeper: timekeeper) {
            coordinator, plan throws(StoreError) in
            var description = description
            description.migrationPlan = plan
            try Self.add(description, to: coordinator)
            return nil
        }
    }

    /// A stack over an in-memory store, for tests and previews.
    public static func inMemory(persist: PersistMode = .immediate) throws(StackError) -> InvoicesStack {
        try InvoicesStack(store: .inMemory, persist: persist, logger: Logger(label: "invoices"), model: nil,
                          timekeeper: .continuous) { coordinator, _ throws(StoreError) in
            try add(.inMemory(), to: coordinator)
            return nil
        }
    }

    /// Adds an SQLite store, its errors typed.
    static func add(_ description: PersistentStoreDescription,
                    to coordinator: PersistentStoreCoordinator) throws(StoreError) {
        do {
            try coordinator.addPersistentStore(description)
        } catch let error as StoreError {
            throw error
        } catch {
            let path = if case .sqlite(let url) = description.kind { url.path } else { ":memory:" }
            throw .cannotOpen(path: path, reason: "\(error)")
        }
    }

    /// - Parameter addStore: opens the store on the coordinator, with the app's migration plan
    ///   (nil for a test's model); returns the PostgreSQL store when it made one.
    init(store: StoreLocation, persist: PersistMode, logger: Logger, model given: ManagedObjectModel?,
         timekeeper: Timekeeper,
         addStore: (PersistentStoreCoordinator, MigrationPlan?) throws(StoreError) -> PostgreSQLStore?) throws(StackError) {
        let model: ManagedObjectModel
        var plan: MigrationPlan?
        do {
            model = try given ?? InvoicesModel.shared.get()
            // The app's own model migrates files of earlier versions on open (a backup is
            // written beside the file first); a test's model has no earlier versions.
            if given == nil { plan = try InvoicesModel.sharedPlan.get() }
        } catch { throw .model("\(error)") }
        let coordinator = PersistentStoreCoordinator(model: model,
                                                     maximumConcurrentNestedBlocks: Self.concurrentNestedBlocks)
        do {
            sharedStore = try addStore(coordinator, plan)
        } catch {
            throw .store(path: store.description, error)
        }
        self.coordinator = coordinator
        self.store = store
        writer = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "writer")
        writer.transactionAuthor = "dashboard"
        main = ManagedObjectContext(.mainQueue, parent: writer, name: "main")
        let changes = DataGeneration(main: main, writer: writer, coordinator: coordinator)
        self.changes = changes
        // Log lines quote values visitors typed (a set-aside change, a refused save): escaped,
        // so a multi-line note cannot forge a line.
        let logger = logger.escapingControlCharacters()
        self.logger = logger
        persistence = WriterPersistence(mode: persist, writer: writer, main: main, logger: logger,
                                        timekeeper: timekeeper, onChange: { changes.bump() })
    }

    /// How invoices are numbered when they leave draft (``InvoiceNumbering``).
    public var numbering: InvoiceNumbering {
        get { numberingSetting.withLock { $0 } }
        set { numberingSetting.withLock { $0 = newValue } }
    }
    private let numberingSetting = Mutex(InvoiceNumbering())
    /// Saves of this process, one at a time from numbering to commit.
    let numberingGate = SerialGate()

    /// The consumer merging other processes' commits, once started.
    private let remote = Mutex<PersistentHistoryConsumer?>(nil)

    /// Merges what other processes commit to the file into writer and main as it happens
    /// (persistent history; see ObjectGraph's `PersistentHistoryConsumer`). `name` keeps this
    /// process's place in the history across restarts: one name per server of a file. Does
    /// nothing for in-memory stacks.
    ///
    /// The history read is kept: it is the record of every change the history pages show
    /// (``history(of:primaryKey:labels:limit:)``). ``purgeReadHistory()`` drops it on request.
    public func startMergingRemoteChanges(as name: String = "dashboard") throws(StackError) {
        guard store.isShared, coordinator.recordsHistory else { return }
        let consumer: PersistentHistoryConsumer
        do {
            consumer = try PersistentHistoryConsumer(name: name, coordinator: coordinator, contexts: [writer, main])
        } catch {
            throw .store(path: store.description, .cannotOpen(path: store.description, reason: "\(error)"))
        }
        let previous = remote.withLock { current in
            defer { current = consumer }
            return current
        }
        stop(previous)
        consumer.start()
    }

    /// The running history consumer (for the inspector), if any.
    public var historyConsumer: PersistentHistoryConsumer? { remote.withLock { $0 } }

    /// Stops merging remote changes (the cursor is kept in the file).
    public func stopMergingRemoteChanges() {
        stop(remote.withLock { current in
            defer { current = nil }
            return current
        })
    }

    /// Stops a consumer; a cursor that cannot be written is logged (the next start merges
    /// again what was merged since it was last written: nothing is lost).
    private func stop(_ consumer: PersistentHistoryConsumer?) {
        do { try consumer?.stop() } catch {
            logger.error("Could not keep this process's place in the history of \(store): \(error)")
        }
    }

    /// Purges the history up to what this process's consumer has merged (ObjectGraph never
    /// purges past another consumer's cursor). The history pages then start after it.
    public func purgeReadHistory() {
        guard let cursor = remote.withLock({ $0?.cursor }) else { return }
        do {
            _ = try coordinator.purgeHistory(before: cursor)
        } catch {
            logger.warning("Persistent history read by this server could not be purged: \(error). It is tried again at the next start; until then the history only grows.")
        }
    }

    /// What pages read has this generation: it changes with every change main can see, this
    /// process's or another's (see ``Generation``). Take it before reading, file what was read
    /// under it.
    public var generation: Generation { changes.current }

    /// A new edit scratchpad: a private-queue child of ``main``. Save it with
    /// ``save(_:policy:)``: through main and the writer to the file, as one unit.
    public func newScratchpad(name: String? = nil) -> ManagedObjectContext {
        main.newChildContext(name: name ?? "scratchpad")
    }

    /// A new import context: private queue, directly on the coordinator, independent of the
    /// writer/main chain. Its saves write to the store; call ``mergeImportSave(_:)`` after
    /// each so that writer and main see them.
    public func newImportContext(name: String? = nil) -> ManagedObjectContext {
        let context = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: name ?? "import")
        context.transactionAuthor = name ?? "import"
        importContexts.add(context)
        return context
    }

    /// The one place where changes saved by an import context (or demo data seeding) are
    /// brought into writer and main.
    ///
    /// Registered objects of writer and main are refreshed with their unsaved edits kept on
    /// top; deleted ones report `isDeletedElsewhere`; main's children that merge from their
    /// parent (open forms) hear of it too. A later save of an edit that conflicts with the
    /// import is reported as a conflict: nothing is overwritten silently.
    public func mergeImportSave(_ changes: SavedChanges) async {
        guard !changes.isEmpty else { return }
        let set = ChangeSet(origin: .merge, context: "import", inserted: changes.inserted,
                            updated: changes.updated, deleted: changes.deleted)
        // The writer first: main refreshes from it. Each merges on its own queue (no thread
        // waits on the main queue).
        let writer = self.writer, main = self.main
        await writer.perform { writer.mergeChanges(set) }
        let changes = self.changes
        await main.perform {
            main.mergeChanges(set)
            // A merge of inserts alone posts no notification, yet main's to-many lists
            // (a client's invoices) now read differently.
            changes.bump()
        }
    }
}
