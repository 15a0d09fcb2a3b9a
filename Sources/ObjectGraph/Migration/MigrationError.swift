import Foundation

/// Why a store could not be opened at its model's version. In every case the file is as it
/// was: a migration runs in one transaction, rolled back on any failure.
public enum MigrationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The file was written by a later version of the model than this app knows.
    case newerVersion(path: String, fileVersion: Int, appVersion: Int)
    /// The file's version is older than the app's, but not one of the migration plan's.
    case unknownVersion(path: String, fileVersion: Int, knownVersions: [Int])
    /// The file's version is older than the app's, and the store description has no
    /// migration plan.
    case noMigrationPlan(path: String, fileVersion: Int, appVersion: Int)
    /// The file says it is of `version`, but its tables differ from that version of the plan
    /// in ways that cannot be made up in place.
    case fileDoesNotMatchVersion(path: String, version: Int, differences: [String])
    /// The backup copy could not be written, so the migration did not start.
    case backupFailed(path: String, reason: String)
    /// A stage failed; the failure names the stage and the object.
    case stageFailed(MigrationFailure)
    /// The store changes its tables only by adding to them (PostgreSQL), and this stage of the
    /// plan does more: each change is named. Nothing was written.
    case changesNotAdditive(location: String, stage: String, changes: [String])

    public var description: String {
        switch self {
        case .newerVersion(let path, let fileVersion, let appVersion):
            return "\(path) was written by version \(fileVersion) of the model, and this app knows versions up to \(appVersion); the file was left untouched. Open it with a newer version of the app."
        case .unknownVersion(let path, let fileVersion, let known):
            return "\(path) is at version \(fileVersion) of the model, which the migration plan does not list (it knows \(known.map(String.init).joined(separator: ", "))); the file was left untouched. Migrate it with an app version that knows \(fileVersion), or add that version to the plan."
        case .noMigrationPlan(let path, let fileVersion, let appVersion):
            return "\(path) is at version \(fileVersion) of the model and the app at \(appVersion), but the store has no migration plan; it was left untouched. Set PersistentStoreDescription.migrationPlan (PostgreSQLStore.Configuration.migrationPlan for a PostgreSQL store)."
        case .fileDoesNotMatchVersion(let path, let version, let differences):
            return "\(path) says it is at version \(version) of the model, but differs from that version: " + differences.joined(separator: "; ") + ". The file was left untouched; the model of version \(version) must not change once files of it exist."
        case .backupFailed(let path, let reason):
            return "The backup \(path) could not be written (\(reason)), so the migration did not start and the file was left untouched. Free space or permissions next to the store, then open it again."
        case .stageFailed(let failure):
            return failure.description
        case .changesNotAdditive(let location, let stage, let changes):
            return "The store at \(location) migrates only by adding (entities, attributes, relationships, defaults, uniqueness constraints), and migration stage \(stage) does more: " + changes.joined(separator: "; ") + ". Nothing was changed. Open it with the app version that wrote it, or make that version's change an addition (a new attribute beside the old one instead of a rename or a type change, data moved by the app itself); SQLite files run every stage."
        }
    }
}

/// Where and why a migration stage failed.
public struct MigrationFailure: Sendable, Equatable, CustomStringConvertible {
    /// What went wrong with the object (or the file).
    public enum Reason: Sendable, Equatable {
        /// The value does not convert exactly to the attribute's new type.
        case inexactConversion(from: AttributeType, to: AttributeType)
        /// The string is longer than the new version's length limit.
        case tooLong(maximum: Int)
        /// Another object (this primary key) has the same values of a new uniqueness constraint.
        case duplicate(of: Int64)
        /// A new required to-one relationship was left empty by the custom stage.
        case missingRelationship
        /// A custom stage read nil from an attribute its old model declares non-optional.
        case missingValue
        /// A custom stage's object did not validate when the stage saved it.
        case invalid(ValidationFailure)
        /// The custom stage threw this error (described).
        case stageError(String)
        /// The store refused a write.
        case store(StoreError)
    }

    /// The stage, as "2 → 3 (its name)".
    public let stage: String
    /// The entity of the object being migrated, when the failure is about one.
    public let entity: String?
    /// Its primary key.
    public let primaryKey: Int64?
    /// The attribute or relationship at fault, when there is one.
    public let property: String?
    /// The value at fault, when there is one.
    public let value: InspectedValue?
    public let reason: Reason

    /// A failure, for tests and for custom stages that report their own.
    public init(stage: String, entity: String? = nil, primaryKey: Int64? = nil, property: String? = nil,
                value: InspectedValue? = nil, reason: Reason) {
        self.stage = stage
        self.entity = entity
        self.primaryKey = primaryKey
        self.property = property
        self.value = value
        self.reason = reason
    }

    public var description: String {
        var object = entity.map { name in primaryKey.map { "\(name) \($0)" } ?? name } ?? "the file"
        if let property { object += ", \(property)" }
        if let value { object += " = \(value.quotedDescription)" }
        return "Migration stage \(stage) failed at \(object): \(explanation). The file was left untouched."
    }

    private var explanation: String {
        switch reason {
        case .inexactConversion(let from, let to):
            return "the value does not convert exactly from \(from.rawValue) to \(to.rawValue); fix it with the old version of the app, or convert it in a custom stage"
        case .tooLong(let maximum):
            return "the text is longer than the new limit of \(maximum) characters; shorten it with the old version of the app, or keep the old limit"
        case .duplicate(let other):
            return "\(entity ?? "another object") \(other) has the same value, and the new version makes it unique; change one of them with the old version of the app"
        case .missingRelationship:
            return "the new relationship is required and the custom stage did not set it"
        case .missingValue:
            return "the old model declares this attribute non-optional, but the file holds nil"
        case .invalid(let failure):
            return "the stage made an object that does not validate: \(failure)"
        case .stageError(let message):
            return "the stage threw: \(message)"
        case .store(let error):
            return error.description
        }
    }
}
