/// Why a ``MigrationPlan`` cannot be used. Thrown when the plan is made (or, for a plan that
/// does not end at the coordinator's model, when the store is added), before any file is
/// touched.
public enum MigrationPlanError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The plan lists no model.
    case noModels
    /// Two models of the plan have this version.
    case duplicateVersion(Int)
    /// No stage leads from one version of the plan to the next: files of `from` could not
    /// be migrated.
    case missingStage(from: Int, to: Int)
    /// A stage does not join two consecutive versions of the plan, or joins two that
    /// another stage joins already.
    case misplacedStage(stage: String, reason: String)
    /// A rename names an entity or property that is not in the version it should be in.
    case invalidRename(stage: String, rename: String, reason: String)
    /// The two versions of a stage differ in ways the stage cannot carry out; each
    /// difference says what to do instead.
    case unsupportedChanges(stage: String, differences: [String])
    /// The coordinator's model is not the plan's last model.
    case modelNotInPlan(modelVersion: Int, planVersion: Int)

    public var description: String {
        switch self {
        case .noModels:
            return "The migration plan lists no model; list every version of the model, oldest first."
        case .duplicateVersion(let version):
            return "The migration plan lists two models of version \(version); give each model its own version."
        case .missingStage(let from, let to):
            return "The migration plan has no stage from version \(from) to \(to): files of version \(from) could not be migrated. Add .lightweight(from: \(from), to: \(to)) or a custom stage."
        case .misplacedStage(let stage, let reason):
            return "The migration plan's stage \(stage) \(reason)."
        case .invalidRename(let stage, let rename, let reason):
            return "Stage \(stage) renames \(rename), but \(reason)."
        case .unsupportedChanges(let stage, let differences):
            return "Stage \(stage) cannot migrate these changes: " + differences.joined(separator: "; ") + "."
        case .modelNotInPlan(let modelVersion, let planVersion):
            return "The coordinator's model (version \(modelVersion)) is not the migration plan's last model (version \(planVersion)); the plan must end at the model the coordinator uses."
        }
    }
}
