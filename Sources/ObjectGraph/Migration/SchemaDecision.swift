import Foundation

/// What opening an existing store must do to its tables, decided from what the store records
/// of the model that wrote it (`_og_metadata`: `modelVersion`, `modelHash`, `modelSchema`),
/// the app's model and its migration plan. Every store decides with it, so the rules are the
/// same on SQLite and PostgreSQL; each store then applies the decision in its own SQL.
///
/// The rules: a later version is refused; the same version with only added entities and
/// optional attributes is extended in place; an earlier version goes to the plan, after
/// adding what the store lacks of its own version. Nothing is written while deciding.
package enum SchemaDecision: Sendable, Equatable {
    /// The store's model is this model.
    case upToDate
    /// The store is at this version but lacks some entities or optional attributes: add them.
    case extend([SchemaAddition])
    /// The store is at an earlier version: add what it lacks of that version (`additions`,
    /// against that version's model), then run the plan's stages from `fromVersion`.
    case migrateVersions(fromVersion: Int, additions: [SchemaAddition])

    /// What a store records of the model that wrote it.
    package struct Recorded: Sendable {
        /// `modelVersion`; nil for a store written before versions were recorded (version 1).
        package var version: String?
        /// `modelHash`.
        package var hash: String?
        /// `modelSchema`, the JSON of the recorded model.
        package var schema: String

        package init(version: String?, hash: String?, schema: String) {
            self.version = version
            self.hash = hash
            self.schema = schema
        }
    }

    /// Decides what `model` (with `plan`) must do to a store that recorded `recorded`.
    /// - Parameter location: the store's path or URL, for errors.
    /// - Throws: ``MigrationError`` for a store of another version that the plan cannot
    ///   migrate, ``StoreError/incompatibleModel(path:differences:)`` listing every difference
    ///   at the same version that cannot be added in place.
    package static func decide(_ recorded: Recorded, model: ManagedObjectModel, plan: MigrationPlan?,
                               location: String) throws -> SchemaDecision {
        let version = try recordedVersion(recorded.version, location: location)
        if version > model.version {
            throw MigrationError.newerVersion(path: location, fileVersion: version, appVersion: model.version)
        }
        guard version == model.version else {
            guard let plan else {
                throw MigrationError.noMigrationPlan(path: location, fileVersion: version, appVersion: model.version)
            }
            guard let versionModel = plan.model(version: version) else {
                throw MigrationError.unknownVersion(path: location, fileVersion: version, knownVersions: plan.versions)
            }
            if recorded.hash == versionModel.versionHash { return .migrateVersions(fromVersion: version, additions: []) }
            let (additions, blockers) = versionModel.schema.migration(from: try schema(recorded.schema, location: location))
            if !blockers.isEmpty {
                throw MigrationError.fileDoesNotMatchVersion(path: location, version: version, differences: blockers)
            }
            return .migrateVersions(fromVersion: version, additions: additions)
        }
        if recorded.hash == model.versionHash { return .upToDate }
        let (additions, blockers) = model.schema.migration(from: try schema(recorded.schema, location: location))
        if !blockers.isEmpty { throw StoreError.incompatibleModel(path: location, differences: blockers) }
        return .extend(additions)
    }

    /// The recorded version; 1 when none was recorded.
    package static func recordedVersion(_ text: String?, location: String) throws -> Int {
        guard let text else { return 1 }
        guard let version = Int(text) else {
            throw StoreError.incompatibleModel(path: location, differences: ["the recorded model version \"\(text)\" cannot be read"])
        }
        return version
    }

    private static func schema(_ json: String, location: String) throws -> ModelSchema {
        do { return try JSONDecoder().decode(ModelSchema.self, from: Data(json.utf8)) } catch {
            throw StoreError.incompatibleModel(path: location, differences: ["the recorded model cannot be read"])
        }
    }
}
