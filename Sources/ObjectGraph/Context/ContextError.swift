import Foundation

/// Why a context could not look up, fetch or change an object.
///
/// `code` carries Core Data's error number where one exists, for people who know them.
public enum ContextError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The row does not exist (anymore) in the store or any ancestor (CD 133000).
    case objectNotFound(ObjectID)
    /// A temporary ID from another context hierarchy: it names an unsaved object this
    /// context cannot see.
    case temporaryIDOutsideHierarchy(ObjectID)
    /// The ID's entity is not in this context's model.
    case unknownEntity(String)
    /// The object belongs to another context.
    case objectFromAnotherContext(ObjectID)
    /// The ID names an object of another entity than the one asked for.
    case wrongEntity(ObjectID, expected: String)
    /// `save(into:)` was given a context that is not an ancestor of the saving one.
    case notAnAncestor(String)

    public var code: Int {
        switch self {
        case .objectNotFound: return 133000
        default: return 134000
        }
    }

    public var description: String {
        switch self {
        case .objectNotFound(let id):
            return "No object \(id) exists: it was deleted, or never saved. Fetch again to get current objects."
        case .temporaryIDOutsideHierarchy(let id):
            return "\(id) is a temporary ID of an unsaved object in another context hierarchy; save it (making its ID permanent) or use it in the context that inserted it or one of that context's children."
        case .unknownEntity(let name):
            return "\(name) is not an entity of this context's model."
        case .objectFromAnotherContext(let id):
            return "\(id) belongs to another context; look it up here with object(with: id)."
        case .wrongEntity(let id, let expected):
            return "\(id) is not a \(expected)."
        case .notAnAncestor(let name):
            return "\(name) is not an ancestor of the saving context; save(into:) takes its parent, its parent's parent, and so on."
        }
    }
}
