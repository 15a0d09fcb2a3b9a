import Synchronization

/// A row as last read from or written to the store: the values by property index (to-many
/// relationships `.unloaded`) and the row version.
package struct RowSnapshot: Sendable {
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
/// `Sendable`: all of its state is one value behind one mutex.
final class RowCache: Sendable {
    private let state = Locked(State())

    /// The snapshot for `id`, if cached.
    func snapshot(for id: ObjectID) -> RowSnapshot? { state.withLock { $0.snapshot(for: id) } }

    /// Stores snapshots read from the store, keeping the newer version of each row.
    /// Rows not held by any object wait in the prefetch pool.
    func store(_ rows: [(ObjectID, RowSnapshot)]) { state.withLock { $0.store(rows) } }

    /// An object now holds the row: keep its entry until released.
    func retain(_ id: ObjectID) { state.withLock { $0.retain(id) } }

    /// Objects no longer hold these rows (one call for a batch of released objects).
    func release(_ ids: [ObjectID]) {
        guard !ids.isEmpty else { return }
        state.withLock { state in for id in ids { state.release(id) } }
    }

    /// An object no longer holds the row.
    func release(_ id: ObjectID) { state.withLock { $0.release(id) } }

    /// Room for `count` more held rows (a fetch's), made at once rather than by doubling.
    func reserveHeld(_ count: Int) {
        state.withLock { $0.entries.reserveCapacity($0.entries.count + count) }
    }

    /// Rows the saving context now holds: stored with one reference each, in one pass.
    func storeHeld(_ rows: [(ObjectID, RowSnapshot)]) {
        guard !rows.isEmpty else { return }
        state.withLock { $0.storeHeld(rows) }
    }

    /// Applies a committed save: rows other contexts hold get their new snapshots (the
    /// saving context adds its own with `storeHeld`), deleted rows go.
    func apply(written: [ObjectID: RowSnapshot], deleted: Set<ObjectID>) {
        state.withLock { $0.apply(written: written, deleted: deleted) }
    }

    /// Forgets a row (it changed elsewhere); the next fault reads it from the store.
    func invalidate(_ id: ObjectID) { state.withLock { $0.invalidate(id) } }

    /// Forgets every row (history that said what changed elsewhere was purged unread).
    func invalidateAll() {
        state.withLock { state in
            for id in Array(state.entries.keys) + Array(state.prefetched.keys) { state.invalidate(id) }
        }
    }

    /// How many rows are cached (held and prefetched), for the inspector.
    var count: Int { state.withLock { $0.entries.count + $0.prefetched.count } }
    /// How many rows objects hold.
    var heldCount: Int { state.withLock { $0.entries.count } }
}

extension RowCache {
    private struct Entry {
        var snapshot: RowSnapshot
        var references: Int
    }

    /// What the cache knows; changed only while the cache's mutex is held.
    private struct State {
        var entries = ObjectIDTable<Entry>()
        var prefetched = ObjectIDTable<RowSnapshot>()
        /// Rows known to have changed elsewhere: snapshots older than this version (read
        /// before the change, stored after the invalidation) are refused.
        var floors = ObjectIDTable<Int64>()
        let prefetchLimit = 200_000

        func snapshot(for id: ObjectID) -> RowSnapshot? {
            if let snapshot = entries[id]?.snapshot, snapshot.version >= 0 { return snapshot }
            return prefetched[id]
        }

        mutating func store(_ rows: [(ObjectID, RowSnapshot)]) {
            if prefetched.count + rows.count > prefetchLimit { prefetched.removeAll(keepingCapacity: true) }
            for (id, snapshot) in rows {
                if !floors.isEmpty, let floor = floors[id] {
                    if snapshot.version < floor { continue }
                    floors[id] = nil
                }
                if let index = entries.index(forKey: id) {
                    if snapshot.version >= entries[at: index].snapshot.version {
                        entries[at: index].snapshot = snapshot
                    }
                } else {
                    prefetched[id] = snapshot
                }
            }
        }

        mutating func retain(_ id: ObjectID) {
            if let index = entries.index(forKey: id) {
                entries[at: index].references += 1
            } else if let snapshot = prefetched.removeValue(forKey: id) {
                entries[id] = Entry(snapshot: snapshot, references: 1)
            }
        }

        mutating func release(_ id: ObjectID) {
            guard let index = entries.index(forKey: id) else { return }
            entries[at: index].references -= 1
            if entries[at: index].references <= 0 { entries.remove(at: index) }
        }

        mutating func storeHeld(_ rows: [(ObjectID, RowSnapshot)]) {
            entries.reserveCapacity(entries.count + rows.count)
            for (id, snapshot) in rows {
                if !floors.isEmpty { floors[id] = nil }   // our own write: the newest version there is
                let index = entries.index(forKey: id)
                if let index {
                    entries[at: index].snapshot = snapshot
                    entries[at: index].references += 1
                } else {
                    if !prefetched.isEmpty { prefetched[id] = nil }
                    entries[id] = Entry(snapshot: snapshot, references: 1)
                }
            }
        }

        mutating func apply(written: [ObjectID: RowSnapshot], deleted: Set<ObjectID>) {
            for (id, snapshot) in written {
                floors[id] = nil
                if let index = entries.index(forKey: id) {
                    entries[at: index].snapshot = snapshot
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

        mutating func invalidate(_ id: ObjectID) {
            let known = max(entries[id]?.snapshot.version ?? -1, prefetched[id]?.version ?? -1)
            if known >= 0 { floors[id] = max(floors[id] ?? 0, known + 1) }
            prefetched[id] = nil
            if let index = entries.index(forKey: id) { entries[at: index].snapshot = RowSnapshot(values: [], version: -1) }
        }
    }
}
