import Foundation

/// Where and how a coordinator keeps its objects.
///
/// ```swift
/// try coordinator.addPersistentStore(.sqlite(at: url))
/// try coordinator.addPersistentStore(.inMemory())
/// ```
public struct PersistentStoreDescription: Sendable {
    public enum Kind: Sendable, Equatable {
        /// An SQLite file (WAL mode), shareable by several coordinators and processes.
        case sqlite(URL)
        /// An in-memory SQLite database: the same SQL and behaviour as a file, gone with the
        /// coordinator. For tests and scratch work.
        case inMemory
    }

    public var kind: Kind
    /// How long a write waits for another connection's or process's lock before failing.
    public var busyTimeout: TimeInterval = 5
    /// How many reader connections serve fetches beside the writer.
    public var maxReaders: Int = 4
    /// The most memory, in bytes, each reader connection's page cache holds (SQLite's
    /// `cache_size`); nil keeps SQLite's default of about 2 MB. Reads of pages a reader has
    /// cached skip a system call and a copy from the OS cache: a server reading a file much
    /// larger than 2 MB at many requests a second gains from a larger one, at the cost of up
    /// to `maxReaders` times this in memory.
    public var readerCacheSize: Int?
    /// The most memory, in bytes, the writer connection's page cache holds; nil keeps SQLite's
    /// default of about 2 MB. A save of thousands of rows touches the pages of every index
    /// of their tables: with 2 MB they are read again from the OS within the same save (an
    /// import of 100,000 invoices read a million pages so; with 16 MB, a third of that).
    public var writerCacheSize: Int?
    /// Whether every write records a transaction in persistent history (author, context,
    /// process, and each object's change); see ``PersistentStoreCoordinator/history(after:)``.
    ///
    /// Once a file records history it keeps doing so: every coordinator that opens it later
    /// records too, whatever its description says, so no process's writes go unseen by a
    /// history consumer. (Core Data instead opens such a store read-only.)
    public var recordsHistory = false
    /// Whether the coordinator watches the file for commits made by other coordinators and
    /// processes and announces them (``PersistentStoreCoordinator/remoteChanges`` and
    /// ``PersistentStoreCoordinator/remoteChangeNotification``). Requires `recordsHistory`.
    public var postsRemoteChangeNotifications = false
    /// How often the watcher checks the file (SQLite's `data_version`, a read of shared
    /// memory: cheap). The delay before a remote change is announced is at most this.
    public var remoteChangeCheckInterval: TimeInterval = 0.02
    /// The SQLite VFS every connection of the store opens the file with (nil: SQLite's
    /// default). For a VFS registered with `sqlite3_vfs_register`: encryption, compression,
    /// or a test VFS that fails writes on demand.
    public var vfsName: String?
    /// How a file written by an earlier version of the model is brought to the coordinator's
    /// model (nil: such files are refused, and only additions migrate in place).
    public var migrationPlan: MigrationPlan?
    /// Whether a migration first copies the file next to it, as `<file>.v<version>-backup`
    /// (`invoices.sqlite.v1-backup`): a complete store of the old version, openable by the
    /// app version that wrote it. ObjectGraph never deletes it; a later migration from the
    /// same version replaces it.
    public var backsUpBeforeMigrating = true

    /// An SQLite file store.
    public static func sqlite(at url: URL, busyTimeout: TimeInterval = 5, recordsHistory: Bool = false,
                              postsRemoteChangeNotifications: Bool = false) -> PersistentStoreDescription {
        var d = PersistentStoreDescription(kind: .sqlite(url))
        d.busyTimeout = busyTimeout
        d.recordsHistory = recordsHistory || postsRemoteChangeNotifications
        d.postsRemoteChangeNotifications = postsRemoteChangeNotifications
        return d
    }

    /// An in-memory store.
    public static func inMemory() -> PersistentStoreDescription {
        PersistentStoreDescription(kind: .inMemory)
    }
}
