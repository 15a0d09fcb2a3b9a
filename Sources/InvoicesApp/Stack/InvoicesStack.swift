import Foundation
import ObjectGraph

/// The contexts of the Invoices application over one SQLite file (see shared/DESIGN.md):
///
/// ```
/// scratchpads (private, children of main) ──save──▶ main (main queue) ──▶ writer (private, root) ──▶ store
///                                import contexts (private, on the coordinator) ──────────────────────▶ store
/// ```
///
/// - ``writer``: the root context. Its saves are the only ones of the nested chain that reach
///   the file, on its private queue, so disk I/O never runs on the main queue.
/// - ``main``: every page reads here (``clientPage(_:)`` and friends run on it).
/// - ``newScratchpad(name:)``: one per open edit form; dropping it discards the edits.
/// - ``newImportContext(name:)``: independent of the chain, for CSV imports and demo data;
///   after it saves, ``mergeImportSave(_:)`` brings the changes to writer and main.
///
/// `Sendable`: every property is immutable and itself `Sendable` (contexts schedule their
/// own work on their own queues).
public final class InvoicesStack: Sendable {
    public let coordinator: PersistentStoreCoordinator
    public let writer: ManagedObjectContext
    public let main: ManagedObjectContext
    /// Where the store lives (`nil` for an in-memory stack).
    public let storeURL: URL?
    /// Counts the changes pages can see (see ``Generation``).
    let changes: DataGeneration

    /// Opens (or creates) the database at `url`, creating its folder if needed.
    /// - Throws: ``StackError`` saying what to do when the file cannot be used.
    public convenience init(storeURL url: URL) throws(StackError) {
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .folder(path: folder.path, reason: error.localizedDescription)
        }
        try self.init(description: .sqlite(at: url), storeURL: url)
    }

    /// A stack over an in-memory store, for tests and previews.
    public static func inMemory() throws(StackError) -> InvoicesStack {
        try InvoicesStack(description: .inMemory(), storeURL: nil)
    }

    private init(description: PersistentStoreDescription, storeURL: URL?) throws(StackError) {
        let model: ManagedObjectModel
        do { model = try InvoicesModel.shared.get() } catch { throw .model("\(error)") }
        let coordinator = PersistentStoreCoordinator(model: model)
        do {
            try coordinator.addPersistentStore(description)
        } catch let error as StoreError {
            throw .store(path: storeURL?.path ?? ":memory:", error)
        } catch {
            throw .store(path: storeURL?.path ?? ":memory:", .cannotOpen(path: storeURL?.path ?? ":memory:",
                                                                         reason: "\(error)"))
        }
        self.coordinator = coordinator
        self.storeURL = storeURL
        writer = ManagedObjectContext(.privateQueue, coordinator: coordinator, name: "writer")
        main = ManagedObjectContext(.mainQueue, parent: writer, name: "main")
        changes = DataGeneration(main: main, writer: writer, coordinator: coordinator, storePath: storeURL?.path)
    }

    /// What pages read has this generation: it changes with every change main can see, this
    /// process's or another's (see ``Generation``). Take it before reading, file what was read
    /// under it.
    public var generation: Generation { changes.current }

    /// A new edit scratchpad: a private-queue child of ``main``. Its save goes into main (not
    /// to disk); save main, then the writer, to persist.
    public func newScratchpad(name: String? = nil) -> ManagedObjectContext {
        main.newChildContext(name: name ?? "scratchpad")
    }

    /// A new import context: private queue, directly on the coordinator, independent of the
    /// writer/main chain. Its saves write to the store; call ``mergeImportSave(_:)`` after
    /// each so that writer and main see them.
    public func newImportContext(name: String? = nil) -> ManagedObjectContext {
        ManagedObjectContext(.privateQueue, coordinator: coordinator, name: name ?? "import")
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
