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

    /// An SQLite file store.
    public static func sqlite(at url: URL, busyTimeout: TimeInterval = 5) -> PersistentStoreDescription {
        var d = PersistentStoreDescription(kind: .sqlite(url))
        d.busyTimeout = busyTimeout
        return d
    }

    /// An in-memory store.
    public static func inMemory() -> PersistentStoreDescription {
        PersistentStoreDescription(kind: .inMemory)
    }
}
