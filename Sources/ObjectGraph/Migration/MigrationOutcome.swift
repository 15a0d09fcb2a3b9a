import Foundation

/// What opening a store migrated (``PersistentStoreCoordinator/migrationOutcome``).
public enum MigrationOutcome: Sendable, Equatable {
    /// This coordinator migrated the file.
    case migrated(MigrationReport)
    /// The file was at an earlier version when this coordinator looked, but another
    /// connection or process migrated it while this one waited for the write lock; nothing
    /// ran here.
    case migratedElsewhere(fromVersion: Int, toVersion: Int)
}

/// A migration this coordinator ran.
public struct MigrationReport: Sendable, Equatable {
    /// The file's version before.
    public let fromVersion: Int
    /// Its version now: the coordinator's model's.
    public let toVersion: Int
    /// The stages that ran, by name ("2 → 3 (amount to line items)").
    public let stages: [String]
    /// The copy of the file as it was before, when one was made.
    public let backup: URL?
    /// How long the migration took, the backup included.
    public let duration: Duration
}
