import CSQLite
import Foundation
import Synchronization

/// Copies committed pages from the WAL into the database file on a queue of its own, so that
/// a commit does not also wait for a checkpoint.
///
/// Left to itself, SQLite checkpoints at the end of the commit that leaves the WAL at 1,000
/// pages or more (`wal_autocheckpoint`): that commit writes every page of the WAL again into
/// the database file and syncs it before it returns. A large save, and every import batch,
/// paid that on the writer's thread. Here the writer only reports each commit's WAL size
/// (`sqlite3_wal_hook`, which takes the automatic checkpoint's place), and a connection of
/// the checkpointer's own runs a passive checkpoint on another thread, beside whatever the
/// writer does next: the arrangement SQLite's documentation suggests ("a separate thread").
///
/// A passive checkpoint takes no lock a reader or the writer waits for; it copies what no
/// reader still needs, and the next write transaction starts the WAL over once all is copied.
/// If the queue falls far behind (the WAL at `inlinePages`), the writer checkpoints within its
/// commit as SQLite would, so the WAL stays bounded however busy the machine is.
///
/// The checkpointer's connection never checkpoints when it closes: the store closes it first,
/// and the writer, last to close, checkpoints and removes the WAL as before.
final class WALCheckpointer: @unchecked Sendable {
    // @unchecked Sendable: `connection` is only used on `queue`, or after `queue` has drained
    // in `stop()`; `writer` is only read by `stop()`, when nothing else uses the store; the
    // counters are atomics.

    /// A commit that leaves the WAL at least this many pages long schedules a checkpoint
    /// (SQLite's own threshold for its automatic one).
    let startPages: Int32
    /// A WAL at least this many pages long is not written after before the checkpoint under
    /// way has copied it: the next transaction then starts the WAL over (see `letWALStartOver()`).
    let restartPages: Int32
    /// A commit that leaves the WAL at least this many pages long checkpoints within it.
    let inlinePages: Int32
    /// Checkpoints run on the queue, and within commits (what tests look at).
    let backgroundCheckpoints = Atomic<Int>(0)
    let inlineCheckpoints = Atomic<Int>(0)
    /// The result code of the last background checkpoint that failed (0: none did; one that
    /// found another connection checkpointing is not a failure). A failed checkpoint loses
    /// nothing: the pages stay in the WAL, and the next one copies them.
    let lastFailure = Atomic<Int32>(0)

    private let queue = DispatchQueue(label: "ObjectGraph.WALCheckpointer", qos: .userInitiated)
    private var connection: SQLiteConnection?
    private let scheduled = Atomic<Bool>(false)
    /// The WAL's length after the last commit, in pages (counted from where it last started over).
    let walPages = Atomic<Int32>(0)
    private var writer: OpaquePointer?

    /// Opens the checkpointer's connection to the store's file (after the writer made it a WAL database).
    init(path: String, vfs: String?, busyTimeout: TimeInterval,
         startPages: Int32 = 1_000, restartPages: Int32 = 4_000, inlinePages: Int32 = 16_000) throws {
        let connection = try SQLiteConnection(path: path, readOnly: false, create: false, busyTimeout: busyTimeout, vfs: vfs)
        connection.keepWALOnClose()
        // SQLite opens the file at a connection's first statement: until then a checkpoint
        // finds no WAL and does nothing.
        try connection.execute("SELECT count(*) FROM sqlite_master")
        self.connection = connection
        self.startPages = max(1, startPages)
        self.restartPages = max(self.startPages, restartPages)
        self.inlinePages = max(self.restartPages, inlinePages)
    }

    /// Makes `writer` report its commits here instead of checkpointing within them. The hook
    /// holds the checkpointer until `stop()`.
    func install(on writer: SQLiteConnection) {
        self.writer = writer.handle
        let context = Unmanaged.passRetained(self).toOpaque()
        sqlite3_wal_hook(writer.handle, { context, db, name, pages in
            guard let context else { return SQLITE_OK }
            Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(walPages: pages, db: db, name: name)
            return SQLITE_OK
        }, context)
    }

    /// Removes the writer's hook, waits for a checkpoint under way and closes the connection.
    /// Called when the store goes away, before its writer closes.
    func stop() {
        guard let writer else { return }
        sqlite3_wal_hook(writer, nil, nil)
        self.writer = nil
        queue.sync { connection = nil }
        Unmanaged.passUnretained(self).release()   // the hook's reference
    }

    /// Called by the writer before it begins a save. SQLite starts the WAL over (writes it
    /// from its first page again) only when a transaction begins after a checkpoint copied
    /// all of it; a checkpoint still running then lets the WAL grow by another transaction.
    /// A long WAL therefore waits for the checkpoint under way, most of which ran beside
    /// whatever the writer did since its last commit.
    func letWALStartOver() {
        if walPages.load(ordering: .relaxed) >= restartPages { queue.sync {} }
    }

    /// Runs a checkpoint now, on the queue (after the one under way, if any).
    /// - Throws: ``StoreError`` when SQLite refuses it (another connection checkpointing is
    ///   not refusal: that one copies the pages).
    func checkpointNow() throws {
        let failure: StoreError? = queue.sync {
            guard let rc = passiveCheckpoint(), Self.isRefusal(rc), let connection else { return nil }
            return connection.error(rc, sql: "checkpoint of the WAL")
        }
        if let failure { throw failure }
    }

    /// A passive checkpoint on the checkpointer's connection, on `queue`: SQLite's result
    /// code, nil once stopped.
    private func passiveCheckpoint() -> Int32? {
        guard let connection else { return nil }
        return sqlite3_wal_checkpoint_v2(connection.handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }

    /// Whether a checkpoint's result is a failure: another connection checkpointing
    /// (`SQLITE_BUSY`, another process's) is not, since that one copies the pages.
    private static func isRefusal(_ rc: Int32) -> Bool {
        rc & 0xff != SQLITE_OK && rc & 0xff != SQLITE_BUSY
    }

    private func committed(walPages: Int32, db: OpaquePointer?, name: UnsafePointer<CChar>?) {
        self.walPages.store(walPages, ordering: .relaxed)
        if walPages >= inlinePages {
            inlineCheckpoints.add(1, ordering: .relaxed)
            sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            return
        }
        guard walPages >= startPages,
              scheduled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        queue.async { [self] in
            // Cleared first: a commit from now on schedules the next checkpoint.
            scheduled.store(false, ordering: .releasing)
            guard let rc = passiveCheckpoint() else { return }
            if Self.isRefusal(rc) {
                lastFailure.store(rc, ordering: .relaxed)
            } else if rc & 0xff == SQLITE_OK {
                backgroundCheckpoints.add(1, ordering: .relaxed)
            }
        }
    }
}
