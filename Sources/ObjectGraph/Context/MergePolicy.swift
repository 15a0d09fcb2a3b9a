import Foundation

/// How a save resolves a conflict: a property this context changed that was also changed
/// elsewhere (in the store, by another context or process) since this context read it.
public enum MergePolicy: Sendable, Equatable {
    /// Fail the save and list every conflict (CD 133020). The default.
    case error
    /// Properties changed on both sides take the store's value; our other changes are kept.
    case mergeByPropertyStoreTrump
    /// Properties changed on both sides take our value; the store's other changes are kept.
    case mergeByPropertyObjectTrump
    /// Our whole object is written, whatever changed elsewhere (Core Data's child-save behaviour).
    case overwrite
    /// Our changes to conflicting objects are dropped; the other objects are still saved.
    case rollback
}

/// A conflict found at save: an object changed or deleted elsewhere since it was read.
public struct MergeConflict: Sendable, Hashable, CustomStringConvertible {
    /// One property changed on both sides.
    public struct PropertyConflict: Sendable, Hashable {
        public let property: String
        /// The value when this context read the object.
        public let base: String
        /// This context's value.
        public let ours: String
        /// The value changed elsewhere.
        public let theirs: String
    }

    public let objectID: ObjectID
    /// Whether the row was deleted elsewhere (then `properties` is empty).
    public let deletedElsewhere: Bool
    /// The row version this context read, and the one found.
    public let expectedVersion: Int64
    public let foundVersion: Int64?
    public let properties: [PropertyConflict]

    public var description: String {
        if deletedElsewhere { return "\(objectID) was deleted elsewhere" }
        let details = properties.map { "\($0.property): base \($0.base), ours \($0.ours), theirs \($0.theirs)" }
        return "\(objectID) changed elsewhere (version \(expectedVersion) → \(foundVersion.map(String.init) ?? "?"))"
            + (details.isEmpty ? "" : ": " + details.joined(separator: "; "))
    }
}

/// Why a save failed. The context keeps its changes, so fixing them and saving again works.
public enum SaveError: Error, CustomStringConvertible, Sendable {
    /// Validation failed (CD 1560 for several); every failure of the save is listed.
    case validationFailed([ValidationFailure])
    /// Objects changed elsewhere conflict with ours (CD 133020) and the merge policy is `.error`.
    case mergeConflict([MergeConflict])
    /// The values would break a uniqueness constraint (CD 133021).
    case uniquenessViolation(entity: String, properties: [String], message: String)
    /// An object refers to an unsaved object of another context hierarchy.
    case temporaryIDOutsideHierarchy(ObjectID)
    /// The store could not write.
    case storeFailure(StoreError)

    public var code: Int {
        switch self {
        case .validationFailed(let f): return f.count == 1 ? f[0].code.rawValue : 1560
        case .mergeConflict: return 133020
        case .uniquenessViolation: return 133021
        case .temporaryIDOutsideHierarchy: return 134000
        case .storeFailure(let e): return e.code
        }
    }

    public var description: String {
        switch self {
        case .validationFailed(let failures):
            return "The save failed validation: " + failures.map(\.description).joined(separator: " ")
        case .mergeConflict(let conflicts):
            return "The save conflicts with changes made elsewhere: "
                + conflicts.map(\.description).joined(separator: "; ")
                + ". Refresh the objects, or choose a merge policy."
        case .uniquenessViolation(let entity, let properties, let message):
            return "Another \(entity) already has this \(properties.joined(separator: " and ")): \(message)."
        case .temporaryIDOutsideHierarchy(let id):
            return ContextError.temporaryIDOutsideHierarchy(id).description
        case .storeFailure(let error):
            return "The store could not save: \(error)"
        }
    }
}
