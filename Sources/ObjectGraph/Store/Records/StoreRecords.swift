import Foundation

/// Small text records kept in the coordinator's store beside the model's entities, each
/// with a key, an optional group and an expiry: what several processes on one store must
/// share but that is not the model's data (a web server's sessions and open forms).
///
/// Writes are plain and cheap: no objects, no contexts, no optimistic locking (the last
/// write of a key wins), and, unlike a save, **no persistent history and no change
/// signal**. A record written on every keystroke therefore never looks like a data change
/// to another process: its history consumer, its kept pages and its history pages see
/// nothing. Expired records read as missing; ``removeExpired(asOf:)`` deletes them.
///
/// ```swift
/// let sessions = try coordinator.records(named: "sessions")
/// try sessions.setValue(json, for: sid, expiresAt: Date().addingTimeInterval(1800))
/// let stored = try sessions.value(for: sid)   // nil when missing or expired
/// ```
///
/// Every method runs its SQL on the calling thread (reads on a reader connection, writes on
/// the writer, each in one transaction) and throws ``StoreError`` when the store refuses.
public final class StoreRecords: Sendable {
    /// The records' table name: records of different names never meet.
    public let name: String
    private let store: any PersistentStore

    init(name: String, store: any PersistentStore) {
        self.name = name
        self.store = store
    }

    /// The value stored for `key`; nil when there is none or it expired by `now`.
    public func value(for key: String, now: Date = Date()) throws -> String? {
        try store.readRecords(RecordStatements.value(name, key: key, now: Self.millis(now))).first?.first ?? nil
    }

    /// Stores `value` for `key` (replacing any earlier one), in `group` when given (to remove
    /// or extend a group's records together), until `expiresAt`.
    public func setValue(_ value: String, for key: String, group: String? = nil, expiresAt: Date) throws {
        _ = try store.writeRecords([RecordStatements.set(name, key: key, value: value, group: group,
                                                         expires: Self.millis(expiresAt), dialect: store.dialect)])
    }

    /// Removes the record of `key`; returns whether there was one.
    @discardableResult
    public func removeValue(for key: String) throws -> Bool {
        try store.writeRecords([RecordStatements.remove(name, key: key)]) > 0
    }

    /// Removes every record of `group`; returns how many there were.
    @discardableResult
    public func removeAll(inGroup group: String) throws -> Int {
        try store.writeRecords([RecordStatements.removeGroup(name, group: group)])
    }

    /// Moves the expiry of the records of `group` that expire sooner to `expiresAt`.
    public func extendExpiry(ofGroup group: String, to expiresAt: Date) throws {
        _ = try store.writeRecords([RecordStatements.extendGroup(name, group: group, expires: Self.millis(expiresAt))])
    }

    /// The keys of `group`'s live records, in key order.
    public func keys(inGroup group: String, now: Date = Date()) throws -> [String] {
        try store.readRecords(RecordStatements.keys(name, group: group, now: Self.millis(now))).compactMap { $0.first ?? nil }
    }

    /// Deletes the records expired by `now`; returns how many.
    @discardableResult
    public func removeExpired(asOf now: Date = Date()) throws -> Int {
        try store.writeRecords([RecordStatements.removeExpired(name, now: Self.millis(now))])
    }

    /// How many records are live at `now`, in every process's view alike.
    public func count(asOf now: Date = Date()) throws -> Int {
        let text = try store.readRecords(RecordStatements.count(name, now: Self.millis(now))).first?.first ?? nil
        return text.flatMap { Int($0) } ?? 0
    }

    private static func millis(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }
}

extension PersistentStoreCoordinator {
    /// The records named `name` in this coordinator's store (see ``StoreRecords``); their
    /// table is made on first use.
    /// - Throws: ``StoreError/noStore``, or ``StoreError`` when the table cannot be made.
    public func records(named name: String) throws -> StoreRecords {
        let store = try requireStore()
        _ = try store.writeRecords(RecordStatements.schema)
        return StoreRecords(name: name, store: store)
    }
}
