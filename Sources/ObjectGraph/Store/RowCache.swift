import Foundation

/// A row as last read from or written to the store: the values by property index (to-many
/// relationships `.unloaded`) and the row version.
struct RowSnapshot: Sendable {
    let values: [StoredValue]
    let version: Int64
}

/// The coordinator's cache of row snapshots, shared by all its contexts.
///
/// An entry lives while at least one object in some context holds it (`retain`/`release`,
/// by the object's materialization and deinit). Rows read ahead of use (a to-many
/// relationship's destinations) wait in `prefetched` until an object claims them; that
/// pool is bounded. Firing a fault whose row is here needs no SQL.
///
/// @unchecked Sendable: `entries` and `prefetched` are only touched while `lock` is held.
final class RowCache: @unchecked Sendable {
    private struct Entry {
        var snapshot: RowSnapshot
        var references: Int
    }

    private let lock = NSLock()
    private var entries: [ObjectID: Entry] = [:]
    private var prefetched: [ObjectID: RowSnapshot] = [:]
    /// Rows known to have changed elsewhere: snapshots older than this version (read
    /// before the change, stored after the invalidation) are refused.
    private var floors: [ObjectID: Int64] = [:]
    private let prefetchLimit = 200_000

    /// The snapshot for `id`, if cached.
    func snapshot(for id: ObjectID) -> RowSnapshot? {
        lock.withLock {
            if let snapshot = entries[id]?.snapshot, snapshot.version >= 0 { return snapshot }
            return prefetched[id]
        }
    }

    /// Stores snapshots read from the store, keeping the newer version of each row.
    /// Rows not held by any object wait in the prefetch pool.
    func store(_ rows: [(ObjectID, RowSnapshot)]) {
        lock.withLock {
            if prefetched.count + rows.count > prefetchLimit { prefetched.removeAll(keepingCapacity: true) }
            for (id, snapshot) in rows {
                if let floor = floors[id] {
                    if snapshot.version < floor { continue }
                    floors[id] = nil
                }
                if var entry = entries[id] {
                    if snapshot.version >= entry.snapshot.version {
                        entry.snapshot = snapshot
                        entries[id] = entry
                    }
                } else {
                    prefetched[id] = snapshot
                }
            }
        }
    }

    /// An object now holds the row: keep its entry until released.
    func retain(_ id: ObjectID) {
        lock.withLock {
            if entries[id] != nil {
                entries[id]?.references += 1
            } else if let snapshot = prefetched.removeValue(forKey: id) {
                entries[id] = Entry(snapshot: snapshot, references: 1)
            }
        }
    }

    func release(_ ids: [ObjectID]) {
        guard !ids.isEmpty else { return }
        lock.withLock {
            for id in ids {
                guard var entry = entries[id] else { continue }
                entry.references -= 1
                if entry.references <= 0 { entries[id] = nil } else { entries[id] = entry }
            }
        }
    }

    func release(_ id: ObjectID) {
        lock.withLock {
            guard var entry = entries[id] else { return }
            entry.references -= 1
            if entry.references <= 0 { entries[id] = nil } else { entries[id] = entry }
        }
    }

    /// Rows the saving context now holds: stored with one reference each, in one pass.
    func storeHeld(_ rows: [(ObjectID, RowSnapshot)]) {
        guard !rows.isEmpty else { return }
        lock.withLock {
            for (id, snapshot) in rows {
                floors[id] = nil   // our own write: the newest version there is
                if var entry = entries[id] {
                    entry.snapshot = snapshot
                    entry.references += 1
                    entries[id] = entry
                } else {
                    prefetched[id] = nil
                    entries[id] = Entry(snapshot: snapshot, references: 1)
                }
            }
        }
    }

    /// Applies a committed save: rows other contexts hold get their new snapshots (the
    /// saving context adds its own with `storeHeld`), deleted rows go.
    func apply(written: [ObjectID: RowSnapshot], deleted: Set<ObjectID>) {
        lock.withLock {
            for (id, snapshot) in written {
                floors[id] = nil
                if var entry = entries[id] {
                    entry.snapshot = snapshot
                    entries[id] = entry
                } else if prefetched[id] != nil {
                    prefetched[id] = snapshot
                }
            }
            for id in deleted {
                floors[id] = nil
                entries[id] = nil
                prefetched[id] = nil
            }
        }
    }

    /// Forgets a row (it changed elsewhere); the next fault reads it from the store.
    func invalidate(_ id: ObjectID) {
        lock.withLock { invalidateLocked(id) }
    }

    private func invalidateLocked(_ id: ObjectID) {
        let known = max(entries[id]?.snapshot.version ?? -1, prefetched[id]?.version ?? -1)
        if known >= 0 { floors[id] = max(floors[id] ?? 0, known + 1) }
        prefetched[id] = nil
        if entries[id] != nil { entries[id]?.snapshot = RowSnapshot(values: [], version: -1) }
    }

    /// Forgets every row (history that said what changed elsewhere was purged unread).
    func invalidateAll() {
        lock.withLock {
            for id in Array(entries.keys) + Array(prefetched.keys) { invalidateLocked(id) }
        }
    }

    /// How many rows are cached (held and prefetched), for the inspector.
    var count: Int { lock.withLock { entries.count + prefetched.count } }
    /// How many rows objects hold.
    var heldCount: Int { lock.withLock { entries.count } }
}
