import Foundation

/// Why a save failed. The context keeps its changes, so fixing them and saving again works.
public enum SaveError: Error, CustomStringConvertible, Sendable {
    /// Validation failed (CD 1560 for several); every failure of the save is listed.
    case validationFailed([ValidationFailure])
    /// Objects changed elsewhere conflict with ours (CD 133020) and the merge policy is `.error`.
    case mergeConflict([MergeConflict])
    /// The values would break a uniqueness constraint (CD 133021).
    case uniquenessViolation(UniquenessViolation)
    /// An object refers to an unsaved object of another context hierarchy.
    case temporaryIDOutsideHierarchy(ObjectID)
    /// The store could not write: busy past its timeout, an I/O error, a constraint the model
    /// does not declare. Nothing was written.
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
        case .uniquenessViolation(let violation):
            return violation.description
        case .temporaryIDOutsideHierarchy(let id):
            return ContextError.temporaryIDOutsideHierarchy(id).description
        case .storeFailure(let error):
            return "The store could not save: \(error)"
        }
    }
}

/// Values that another object of the entity already has, where a uniqueness constraint
/// (`@Attribute(.unique)` or `uniquenessConstraints`) allows one.
public struct UniquenessViolation: Sendable, Hashable, CustomStringConvertible {
    /// The entity whose constraint is broken.
    public let entity: String
    /// The properties of the constraint, in declaration order.
    public let properties: [String]
    /// The clashing values, one per property (empty when the store did not say).
    public let values: [InspectedValue]
    /// The object of this save that has the values, when known.
    public let objectID: ObjectID?

    public init(entity: String, properties: [String], values: [InspectedValue], objectID: ObjectID?) {
        self.entity = entity
        self.properties = properties
        self.values = values
        self.objectID = objectID
    }

    public var description: String {
        let shown = zip(properties, values).map { "\($0) \($1.quotedDescription)" }.joined(separator: ", ")
        return "Another \(entity) already has this \(properties.joined(separator: " and "))"
            + (shown.isEmpty ? "." : ": \(shown).")
    }
}
