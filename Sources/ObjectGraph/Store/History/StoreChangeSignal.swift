import Foundation

/// A number that changes when someone else commits to the store: another coordinator,
/// another process (`invoices import`), another server.
///
/// Cheap enough to read on every request: a page kept since an earlier answer is still
/// fresh while the answer is the same. On SQLite it is `PRAGMA data_version`, read from
/// shared memory on a connection of the signal's own; a PostgreSQL store counts the
/// notifications its committing transactions send.
///
/// The signal moves as the commit lands, before the coordinator has read what it changed:
/// until the coordinator announces the change (``PersistentStoreCoordinator/remoteChanges``,
/// ``PersistentStoreCoordinator/remoteChangeNotification``), its cached rows may still be
/// the old ones, and a read keyed on the signal alone can file old values under the new
/// answer. Whoever keeps results keyed on it should count announcements too.
///
/// ```swift
/// let signal = try coordinator.storeChangeSignal()
/// let before = signal.current
/// // … another process commits …
/// signal.current != before   // true
/// ```
public protocol StoreChangeSignal: Sendable {
    /// A value that differs from every earlier answer once another connection has committed
    /// since (late by at most the interval the signal reuses answers for). An error while
    /// asking (the file busy past a short timeout) gives a value never given before, so a
    /// reader reads again rather than trusting what it kept.
    var current: Int64 { get }
}

/// The signal of a store nobody else can write to (an in-memory store): it never changes.
struct UnchangingSignal: StoreChangeSignal {
    var current: Int64 { 0 }
}
