import Foundation

/// Every version of a model, oldest first, and a stage from each version to the next: how a
/// store written by any earlier version is brought to the current one.
///
/// ```swift
/// let plan = try MigrationPlan(models: [v1, v2, v3], stages: [
///     .lightweight(from: 1, to: 2, renaming: [.property(\V1.Invoice.number, to: \V2.Invoice.identifier)]),
///     .custom(from: 2, to: 3, name: "amount to line items") { migration in ... },
/// ])
/// var description = PersistentStoreDescription.sqlite(at: url)
/// description.migrationPlan = plan
/// let coordinator = PersistentStoreCoordinator(model: v3)      // the plan's last model
/// try coordinator.addPersistentStore(description)              // migrates a v1 or v2 file
/// ```
///
/// Making the plan checks it: versions unique, no version without a stage to the next,
/// renames that name real entities and properties, and stages whose models differ only in
/// ways the stage can carry out. A plan that would fail on some file fails here, at start,
/// never halfway through a migration.
///
/// Opening a store with a plan: a file at the last version opens as usual; a file at an
/// earlier version is migrated through every stage from its version on, in one SQLite
/// transaction, after a backup copy is written next to it (see
/// ``PersistentStoreDescription/backsUpBeforeMigrating``); a file of a later version, or of
/// a version the plan does not list, is refused. A file written before versions were
/// recorded counts as version 1.
public struct MigrationPlan: Sendable {
    /// The models, by ascending version.
    public let models: [ManagedObjectModel]
    /// The stages, by ascending version.
    public let stages: [MigrationStage]
    /// What each stage does to the tables, in the order of `stages`.
    let changes: [StageChange]

    /// - Throws: ``MigrationPlanError`` when the plan cannot migrate every listed version.
    public init(models: [ManagedObjectModel], stages: [MigrationStage]) throws {
        guard !models.isEmpty else { throw MigrationPlanError.noModels }
        let models = models.sorted { $0.version < $1.version }
        for (a, b) in zip(models, models.dropFirst()) where a.version == b.version {
            throw MigrationPlanError.duplicateVersion(a.version)
        }
        let byVersion = Dictionary(uniqueKeysWithValues: models.map { ($0.version, $0) })
        var byStart: [Int: MigrationStage] = [:]
        for stage in stages {
            guard let from = byVersion[stage.fromVersion], byVersion[stage.toVersion] != nil else {
                throw MigrationPlanError.misplacedStage(stage: stage.name, reason: "names a version the plan does not list")
            }
            guard models.first(where: { $0.version > from.version })?.version == stage.toVersion else {
                throw MigrationPlanError.misplacedStage(
                    stage: stage.name, reason: "does not lead to the next version of the plan after \(stage.fromVersion)")
            }
            guard byStart[stage.fromVersion] == nil else {
                throw MigrationPlanError.misplacedStage(stage: stage.name, reason: "starts where another stage starts")
            }
            byStart[stage.fromVersion] = stage
        }
        var ordered: [MigrationStage] = []
        var changes: [StageChange] = []
        for (from, to) in zip(models, models.dropFirst()) {
            guard let stage = byStart[from.version] else {
                throw MigrationPlanError.missingStage(from: from.version, to: to.version)
            }
            let change = try StageChange(from: from, to: to, renames: stage.renames, isCustom: stage.isCustom, stage: stage.name)
            if !change.unsupported.isEmpty {
                throw MigrationPlanError.unsupportedChanges(stage: stage.name, differences: change.unsupported)
            }
            ordered.append(stage)
            changes.append(change)
        }
        self.models = models
        self.stages = ordered
        self.changes = changes
    }

    /// The last model: the one the coordinator must use.
    public var currentModel: ManagedObjectModel { models[models.count - 1] }

    /// The versions the plan lists.
    public var versions: [Int] { models.map(\.version) }

    func model(version: Int) -> ManagedObjectModel? { models.first { $0.version == version } }

    /// The stages (and their changes) that take a file of `version` to the current version.
    func steps(from version: Int) -> [(stage: MigrationStage, change: StageChange, from: ManagedObjectModel,
                                       to: ManagedObjectModel)] {
        guard let start = models.firstIndex(where: { $0.version == version }) else { return [] }
        return (start..<stages.count).map { (stages[$0], changes[$0], models[$0], models[$0 + 1]) }
    }
}
